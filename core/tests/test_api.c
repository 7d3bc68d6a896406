#include "bg_check.h"
int main(void){return bg_check_summary();}
