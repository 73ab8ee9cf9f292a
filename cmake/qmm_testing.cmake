# qmm_add_test(NAME <name> COMMAND <target> [args...] [ENVIRONMENT var=value...]
#              [LABELS label...])
#
# Registers one ctest test natively. In a cross build whose tests run under an
# emulator, registers it once per emulated CPU in QMM_TEST_CPUS instead, as
# <name>@<cpu> with QEMU_CPU set, so the whole suite runs on every CPU model.
# In a sanitized build (QMM_SANITIZE) every test also gets the sanitizers'
# run-time options. Label `threads` marks the tests that run several threads,
# the ones a ThreadSanitizer build (QMM_SANITIZE=thread) has to run; under
# an emulator they run with QMM_NUM_THREADS=2 unless they set it themselves.
set(QMM_TEST_CPUS "cortex-a53;cortex-a76;max" CACHE STRING
  "QEMU CPU models the cross-built test suite runs on")

function(qmm_add_test)
  cmake_parse_arguments(T "" "NAME" "COMMAND;ENVIRONMENT;LABELS" ${ARGN})
  list(APPEND T_ENVIRONMENT ${QMM_SANITIZE_TEST_ENVIRONMENT})
  if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
    if("threads" IN_LIST T_LABELS AND NOT T_ENVIRONMENT MATCHES "QMM_NUM_THREADS=")
      list(APPEND T_ENVIRONMENT QMM_NUM_THREADS=2)
    endif()
    foreach(cpu IN LISTS QMM_TEST_CPUS)
      add_test(NAME ${T_NAME}@${cpu} COMMAND ${T_COMMAND})
      set(labels qemu ${cpu} ${T_LABELS})
      set_tests_properties(${T_NAME}@${cpu} PROPERTIES
        ENVIRONMENT "QEMU_CPU=${cpu};${T_ENVIRONMENT}" LABELS "${labels}")
    endforeach()
  else()
    add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${T_ENVIRONMENT}"
      LABELS "${T_LABELS}")
  endif()
endfunction()
