# cmake/qmm_arch.cmake's choice for a target no machine here builds for
# (Apple's systems), run in script mode:
#   cmake -DSOURCE_DIR=<repository> [-DAPPLE=1] [-DARCHS=a|b] [-DPROCESSOR=p]
#         -DEXPECT=<QMM_ARCH>:<detection source>:<cpu_features ON/OFF> -P check_arch.cmake
# ARCHS is CMAKE_OSX_ARCHITECTURES with `|` for `;`. A case that must be
# refused expects configure's error instead (the test's PASS_REGULAR_EXPRESSION).
if(DEFINED ARCHS)
  string(REPLACE "|" ";" CMAKE_OSX_ARCHITECTURES "${ARCHS}")
endif()
set(CMAKE_SYSTEM_PROCESSOR "${PROCESSOR}")
include(${SOURCE_DIR}/cmake/qmm_arch.cmake)
set(got "${QMM_ARCH}:${QMM_CPU_DETECT_SOURCE}:${QMM_CPU_FEATURES}")
if(NOT got STREQUAL EXPECT)
  message(FATAL_ERROR "cmake/qmm_arch.cmake chose ${got}, expected ${EXPECT}")
endif()
