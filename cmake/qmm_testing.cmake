# qmm_add_test(NAME <name> COMMAND <command> [args...] [ENVIRONMENT var=value...]
#              [LABELS label...] [SLOW] [TIMEOUT <seconds>] [ONCE])
#
# Registers one ctest test natively. In a cross build whose tests run under an
# emulator (QEMU user mode: toolchains/aarch64-linux-gnu*.cmake), registers it
# once per emulated CPU instead, as <name>@<tag> with QEMU_CPU set and the
# labels qemu and <tag>: every test on each CPU of QMM_TEST_CPUS, and the
# tests labelled `kernels` (those that drive every kernel this CPU supports
# through one-shot calls, plans, quantized stages, threads and depth
# blocking) on each CPU of QMM_TEST_KERNEL_CPUS too. ONCE registers the
# command once as it is, in any build: for a command that is not one of this
# build's programs (cmake -P, sh, an emulator named in the command).
# In a sanitized build (QMM_SANITIZE) every test also gets the sanitizers'
# run-time options. Label `threads` marks the tests that run several threads,
# the ones a ThreadSanitizer build (QMM_SANITIZE=thread) has to run; under
# an emulator they run with QMM_NUM_THREADS=2 unless they set it themselves.
#
# Tiers: every test is labelled `quick` or, with SLOW, `slow`. `quick` is what
# a contributor runs after each change (scripts/test.sh --quick: the native
# build's quick tests, a few minutes on two cores in all), so a test that
# takes more than a few seconds natively goes in `slow`, and a slow test
# covers what no quick one does. Every test has a TIMEOUT, so that a hang
# fails in minutes: TIMEOUT's seconds, or QMM_TEST_TIMEOUT's (natively) and
# QMM_TEST_EMULATED_TIMEOUT's (under the emulator, registered per CPU or
# labelled qemu). test_ctest_tiers (test/cmake/check_tiers.cmake) fails on a
# test without a tier or a timeout (one registered with add_test alone).
# The CPU lists are CMake lists (entries separated by ';': quote the value on
# a command line), each entry one emulated CPU:
#
#   <tag>          a QEMU CPU model, which is also the tag: cortex-a76
#   <tag>=<cpu>    QEMU_CPU=<cpu>, a model with properties after commas as
#                  qemu-aarch64 -cpu takes them (everything after the first
#                  '='), the tag naming it in the tests' names and labels:
#       max-sve128-sme128=max,sve-default-vector-length=16,sme-default-vector-length=16
#
# A tag is letters, digits, '.', '_' and '-'. The tags below give vector
# lengths in bits, as Arm names them (SVE256); QEMU's properties take bytes.
# A tag in both lists is one CPU (its <cpu> must agree); an empty
# QMM_TEST_KERNEL_CPUS leaves the whole suite on QMM_TEST_CPUS alone. CPUs
# that the emulator does not know (qemu-aarch64 -cpu help) are left out with
# a warning.
#
# The defaults, with what QEMU 10.0's models have (HWCAPs read under it):
#   QMM_TEST_CPUS         cortex-a53  NEON alone
#                         cortex-a76  dotprod
#                         max         dotprod, i8mm, SVE at 512 bits with
#                                     i8mm, SME with a 256-bit streaming
#                                     vector
#   QMM_TEST_KERNEL_CPUS  neoverse-v1 SVE at 256 bits, dotprod, i8mm
#                         neoverse-n2 SVE2 at 128 bits, dotprod, i8mm
#                         a64fx       SVE at 512 bits without dotprod or i8mm
#                         max-sve128-sme128, max-sve256-sme512,
#                         max-sve2048-sme2048: max with those lengths
# so that the SVE kernels run at 128, 256, 512 and 2048 bits, SME's at
# streaming lengths of 128, 256, 512 and 2048 bits (where its tile fits:
# kernels/kernel.h), and every tier on a CPU of its own. A CPU whose
# extensions and vector lengths one of these has already would run the same
# kernels and choices again (neoverse-n1 is cortex-a76's): left out.
# QMM_TEST_EVERY_KERNEL_CPUS (max) names the CPUs on which the tests force
# every kernel; elsewhere they drive the kernels that CPU adds
# (_qmm_test_kernels below), so that no kernel runs the same suites on the
# same tile twice.
set(QMM_TEST_CPUS "cortex-a53;cortex-a76;max" CACHE STRING
  "Emulated CPUs that the cross-built test suite runs on (<tag> or <tag>=<QEMU_CPU>; cmake/qmm_testing.cmake)")
set(QMM_TEST_EVERY_KERNEL_CPUS max CACHE STRING
  "Emulated CPUs (tags of QMM_TEST_CPUS) on which the tests force every kernel: one with every extension (cmake/qmm_testing.cmake)")
set(QMM_TEST_KERNEL_CPUS
  "neoverse-v1;neoverse-n2;a64fx;max-sve128-sme128=max,sve-default-vector-length=16,sme-default-vector-length=16;max-sve256-sme512=max,sve-default-vector-length=32,sme-default-vector-length=64;max-sve2048-sme2048=max,sve-default-vector-length=256,sme-default-vector-length=256"
  CACHE STRING
  "More emulated CPUs for the tests labelled kernels (<tag> or <tag>=<QEMU_CPU>; cmake/qmm_testing.cmake)")

# The two lists checked and taken apart, once: _QMM_TEST_SUITE_TAGS and
# _QMM_TEST_KERNEL_TAGS (the kernel CPUs not in the suite's list), and
# _QMM_TEST_CPU_<tag>, each CPU's QEMU_CPU.
set(_QMM_TEST_SUITE_TAGS)
set(_QMM_TEST_KERNEL_TAGS)
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  # What the emulator knows, when it says (QEMU does, exiting 1).
  list(GET CMAKE_CROSSCOMPILING_EMULATOR 0 _qmm_emulator)
  execute_process(COMMAND ${_qmm_emulator} -cpu help
    OUTPUT_VARIABLE _qmm_models ERROR_QUIET RESULT_VARIABLE _qmm_rc)
  execute_process(COMMAND ${_qmm_emulator} --version
    OUTPUT_VARIABLE _qmm_version ERROR_QUIET RESULT_VARIABLE _qmm_rc)
  if(_qmm_models MATCHES "Available CPUs:")
    string(REGEX MATCHALL "\n +[^ \n]+" _qmm_models "${_qmm_models}")
    string(REGEX REPLACE "[\n ]" "" _qmm_models "${_qmm_models}")
  else()
    set(_qmm_models)
  endif()
  if(_qmm_version MATCHES "^qemu-[a-z0-9_]+ version ([0-9]+)\\.([0-9]+)")
    if(CMAKE_MATCH_1 LESS 10)
      message(WARNING "qmm: the tests run under QEMU ${CMAKE_MATCH_1}.${CMAKE_MATCH_2} "
        "(${_qmm_emulator}), older than the QEMU 10 they are meant for: 7.2 computes "
        "SME's outer products wrong and lacks some of the CPU models tested. "
        "QMM_QEMU_AARCH64 names the emulator; scripts/deps.sh's qmm_install_qemu10 "
        "builds QEMU 10 into /usr/local/lib/qmm-qemu10")
    endif()
  endif()

  foreach(_qmm_list IN ITEMS QMM_TEST_CPUS QMM_TEST_KERNEL_CPUS)
    foreach(_qmm_entry IN LISTS ${_qmm_list})
      if(_qmm_entry MATCHES "^([^=]*)=(.*)$")
        set(_qmm_tag "${CMAKE_MATCH_1}")
        set(_qmm_cpu "${CMAKE_MATCH_2}")
      else()
        set(_qmm_tag "${_qmm_entry}")
        set(_qmm_cpu "${_qmm_entry}")
      endif()
      if(NOT _qmm_tag MATCHES "^[A-Za-z0-9._-]+$" OR NOT _qmm_cpu MATCHES "^[^ \t,=][^ \t]*$")
        message(FATAL_ERROR "qmm: ${_qmm_list}: '${_qmm_entry}' is not <tag> or "
          "<tag>=<QEMU_CPU> (cmake/qmm_testing.cmake)")
      endif()
      if(DEFINED _QMM_TEST_CPU_${_qmm_tag})
        if(NOT _QMM_TEST_CPU_${_qmm_tag} STREQUAL _qmm_cpu)
          message(FATAL_ERROR "qmm: the CPU tag ${_qmm_tag} names both "
            "${_QMM_TEST_CPU_${_qmm_tag}} and ${_qmm_cpu}")
        endif()
        continue()
      endif()
      string(REGEX REPLACE ",.*" "" _qmm_model "${_qmm_cpu}")
      if(_qmm_models AND NOT _qmm_model IN_LIST _qmm_models)
        message(WARNING "qmm: ${_qmm_list}: ${_qmm_emulator} has no CPU model "
          "${_qmm_model}: no test runs on ${_qmm_tag}")
        continue()
      endif()
      set(_QMM_TEST_CPU_${_qmm_tag} "${_qmm_cpu}")
      if(_qmm_list STREQUAL "QMM_TEST_CPUS")
        list(APPEND _QMM_TEST_SUITE_TAGS ${_qmm_tag})
      else()
        list(APPEND _QMM_TEST_KERNEL_TAGS ${_qmm_tag})
      endif()
    endforeach()
  endforeach()
endif()

# qmm_test_cpus(<out> [KERNELS]): the tags of the CPUs that every test runs
# on under the emulator, and with KERNELS those that the `kernels` tests
# also run on.
function(qmm_test_cpus out)
  set(tags ${_QMM_TEST_SUITE_TAGS})
  if("KERNELS" IN_LIST ARGN)
    list(APPEND tags ${_QMM_TEST_KERNEL_TAGS})
  endif()
  set(${out} ${tags} PARENT_SCOPE)
endfunction()

# qmm_test_cpu(<tag> <cpu> [<model>]): the CPU's QEMU_CPU, and its model (the
# part before the first comma).
function(qmm_test_cpu tag cpu)
  set(${cpu} "${_QMM_TEST_CPU_${tag}}" PARENT_SCOPE)
  if(ARGC GREATER 2)
    string(REGEX REPLACE ",.*" "" model "${_QMM_TEST_CPU_${tag}}")
    set(${ARGV2} "${model}" PARENT_SCOPE)
  endif()
endfunction()

set(QMM_TEST_TIMEOUT 300 CACHE STRING
  "Seconds before ctest stops a test that sets no TIMEOUT of its own (native runs)")
set(QMM_TEST_EMULATED_TIMEOUT 900 CACHE STRING
  "Seconds before ctest stops an emulated test that sets no TIMEOUT of its own")

# Which kernels the tests drive on the emulated CPU tag (QMM_TEST_KERNELS,
# test/support/testlib.h): every kernel on a CPU of
# QMM_TEST_EVERY_KERNEL_CPUS, which has every extension, so that each kernel
# runs there; on a CPU set to a vector length, the kernels whose tile grows
# with it (the others are the same code on the same tile as there); on the
# others, the selector's, which is what their tiers bring.
function(_qmm_test_kernels tag cpu out)
  if(tag IN_LIST QMM_TEST_EVERY_KERNEL_CPUS)
    set(${out} all PARENT_SCOPE)
  elseif(cpu MATCHES "vector-length=")
    set(${out} scalable PARENT_SCOPE)
  else()
    set(${out} selected PARENT_SCOPE)
  endif()
endfunction()

# The properties every registration ends with: tier, timeout, environment.
function(_qmm_test_properties name env labels slow timeout emulated)
  if(slow)
    list(APPEND labels slow)
  else()
    list(APPEND labels quick)
  endif()
  if(NOT timeout)
    if(emulated OR "qemu" IN_LIST labels)
      set(timeout ${QMM_TEST_EMULATED_TIMEOUT})
    else()
      set(timeout ${QMM_TEST_TIMEOUT})
    endif()
  endif()
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}" LABELS "${labels}"
    TIMEOUT ${timeout})
endfunction()

function(qmm_add_test)
  cmake_parse_arguments(T "SLOW;ONCE" "NAME;TIMEOUT" "COMMAND;ENVIRONMENT;LABELS" ${ARGN})
  list(APPEND T_ENVIRONMENT ${QMM_SANITIZE_TEST_ENVIRONMENT})
  # OpenMP's threads wait for work by spinning. The tests run up to four
  # threads on machines of two cores, and under emulators and sanitizers,
  # where the spinning took most of their time (test_float_crt's suite on two
  # cores: 16 s, 3.6 s waiting passively); the bits are the same either way.
  if(NOT T_ENVIRONMENT MATCHES "OMP_WAIT_POLICY=")
    list(APPEND T_ENVIRONMENT OMP_WAIT_POLICY=passive)
  endif()
  if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR AND NOT T_ONCE)
    if("threads" IN_LIST T_LABELS AND NOT T_ENVIRONMENT MATCHES "QMM_NUM_THREADS=")
      list(APPEND T_ENVIRONMENT QMM_NUM_THREADS=2)
    endif()
    if("kernels" IN_LIST T_LABELS)
      qmm_test_cpus(tags KERNELS)
    else()
      qmm_test_cpus(tags)
    endif()
    foreach(tag IN LISTS tags)
      qmm_test_cpu(${tag} cpu)
      set(env "QEMU_CPU=${cpu};${T_ENVIRONMENT}")
      if(NOT T_ENVIRONMENT MATCHES "QMM_TEST_KERNELS=")
        _qmm_test_kernels(${tag} "${cpu}" which)
        list(APPEND env QMM_TEST_KERNELS=${which})
      endif()
      add_test(NAME ${T_NAME}@${tag} COMMAND ${T_COMMAND})
      _qmm_test_properties(${T_NAME}@${tag} "${env}" "qemu;${tag};${T_LABELS}" "${T_SLOW}"
        "${T_TIMEOUT}" TRUE)
    endforeach()
  else()
    add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
    _qmm_test_properties(${T_NAME} "${T_ENVIRONMENT}" "${T_LABELS}" "${T_SLOW}" "${T_TIMEOUT}"
      FALSE)
  endif()
endfunction()
