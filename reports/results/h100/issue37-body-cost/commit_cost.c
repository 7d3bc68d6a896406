#include <stdio.h>
#include <time.h>
#include "bagnold.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  bg_sim_desc d=bg_sim_desc_default();
  d.dx=0.01f; d.dims[0]=213;d.dims[1]=213;d.dims[2]=173; d.backend="cpu/ref";
  bg_body b=bg_body_default(); b.radius=0.255f; b.density=3*d.material.rho0;
  b.x[0]=1.06f;b.x[1]=1.06f;b.x[2]=1.0f; d.bodies=&b; d.n_bodies=1;
  char err[512]; bg_sim*s=NULL;
  if(bg_sim_create(&d,&s,err,sizeof err)!=BG_OK){printf("%s\n",err);return 1;}
  bg_real v[3]={0,0,-1},w[3]={0,0,0};
  double t0=now(); int n=200;
  for(int i=0;i<n;++i) bg_sim_set_body_velocity(s,0,v,w);
  printf("commit %.2f ms\n",(now()-t0)/n*1e3);
  bg_sim_destroy(s); return 0;}
