# Every test declares the cores it uses, so that `ctest -j N` on any machine
# runs as many tests side by side as there are cores for them: each gets
# OMP_NUM_THREADS and passive waiting in its own ENVIRONMENT, and PROCESSORS
# to match. Without this, ctest -j16 on a 16-core host started sixteen tests
# of sixteen spinning OpenMP threads each and timed small tests out.
#
# BAGNOLD_TEST_THREADS (cache, default 1) is the OpenMP team of one test.
# One thread per test and as many tests as cores finished the suite sooner
# than two-thread teams one after another: the experiments' read-out and
# fits are serial, and another test fills that core meanwhile. The CPU
# backend's results do not depend on its thread count (test_conservation),
# so neither do the tests'. A test whose name says it runs the serial
# reference backend (.cpu-ref) gets one whatever the setting. A test that
# already sets OMP_NUM_THREADS or PROCESSORS keeps it.
set(BAGNOLD_TEST_THREADS 1 CACHE STRING "OpenMP threads of one test (its ctest PROCESSORS)")
if(NOT BAGNOLD_TEST_THREADS MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "BAGNOLD_TEST_THREADS must be a positive integer (got '${BAGNOLD_TEST_THREADS}')")
endif()

# The heaviest tests (a COST of 900 s or more: the quick runs of the long
# experiments and their re-running mutants) are the suite's critical path
# once there are many cores: on the 16-core GPU host exp_repose.quick alone
# outlasted everything else at one thread. They get a quarter of the
# machine's cores, at most 4; on 2-4 cores that is 1, so a small machine
# runs them exactly as before.
cmake_host_system_information(RESULT bg_host_cores QUERY NUMBER_OF_LOGICAL_CORES)
math(EXPR bg_heavy_threads "${bg_host_cores} / 4")
if(bg_heavy_threads GREATER 4)
  set(bg_heavy_threads 4)
elseif(bg_heavy_threads LESS BAGNOLD_TEST_THREADS)
  set(bg_heavy_threads ${BAGNOLD_TEST_THREADS})
endif()
set(BAGNOLD_TEST_THREADS_HEAVY ${bg_heavy_threads} CACHE STRING
    "OpenMP threads of one test with a COST of 900 s or more (default: a quarter of the cores, 1 to 4)")
if(NOT BAGNOLD_TEST_THREADS_HEAVY MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "BAGNOLD_TEST_THREADS_HEAVY must be a positive integer (got '${BAGNOLD_TEST_THREADS_HEAVY}')")
endif()

# Applies the rule to every test registered in the calling directory; call it
# at the end of each CMakeLists.txt that adds tests (a test's properties can
# only be set from its own directory in CMake 3.25).
function(bg_declare_test_threads)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    get_test_property(${t} ENVIRONMENT env)
    if(NOT env)
      set(env "")
    endif()
    get_test_property(${t} PROCESSORS procs)
    get_test_property(${t} COST cost)
    set(n ${BAGNOLD_TEST_THREADS})
    if(cost AND cost GREATER_EQUAL 900)
      set(n ${BAGNOLD_TEST_THREADS_HEAVY})
    endif()
    if(t MATCHES "\\.cpu-ref($|\\.)")
      set(n 1)
    endif()
    if(NOT env MATCHES "(^|;)OMP_NUM_THREADS=")
      list(APPEND env "OMP_NUM_THREADS=${n}")
    else()
      string(REGEX REPLACE ".*(^|;)OMP_NUM_THREADS=([0-9]+).*" "\\2" n "${env}")
    endif()
    if(NOT env MATCHES "(^|;)OMP_WAIT_POLICY=")
      list(APPEND env "OMP_WAIT_POLICY=passive")
    endif()
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "${env}")
    if(NOT procs)
      set_tests_properties(${t} PROPERTIES PROCESSORS ${n})
    endif()
  endforeach()
endfunction()
