# Which CPU detection and which kernel directory this target architecture uses.
#   QMM_ARCH               aarch64, x86_64 or other
#   QMM_CPU_DETECT_SOURCE  platform/ file that implements qmm_cpu_detect_hardware()
#   QMM_CPU_FEATURES       whether that file calls Google's cpu_features (then
#                          found as a package and folded into the library)
#   QMM_ISA_DIR            the architecture's kernels/<dir>, test/<dir> and
#                          cmake/kernels_<dir>.cmake (empty: portable kernels only)
#
# On Apple the architecture is the one the compiler is told to target,
# CMAKE_OSX_ARCHITECTURES, where it is set: CMAKE_SYSTEM_PROCESSOR is the
# host's (arm64 on a Mac building for x86_64) or empty (iOS). One architecture
# per build: the kernels, their assembler flags and the CPU detection are
# chosen per architecture.
include(CheckSymbolExists)

if(APPLE AND CMAKE_OSX_ARCHITECTURES)
  list(LENGTH CMAKE_OSX_ARCHITECTURES _qmm_arch_count)
  if(_qmm_arch_count GREATER 1)
    message(FATAL_ERROR "qmm: CMAKE_OSX_ARCHITECTURES=\"${CMAKE_OSX_ARCHITECTURES}\": "
      "qmm builds one architecture at a time (its kernels and CPU detection differ "
      "per architecture). Build each in its own directory, for instance "
      "-DCMAKE_OSX_ARCHITECTURES=arm64 and -DCMAKE_OSX_ARCHITECTURES=x86_64, and join "
      "the two libqmm.a with `lipo -create -output libqmm.a arm64/libqmm.a x86_64/libqmm.a`.")
  endif()
  set(_qmm_proc ${CMAKE_OSX_ARCHITECTURES})
elseif(APPLE AND NOT CMAKE_SYSTEM_PROCESSOR)
  message(FATAL_ERROR "qmm: no target architecture: set CMAKE_OSX_ARCHITECTURES "
    "(arm64 for iOS and Apple silicon)")
else()
  set(_qmm_proc ${CMAKE_SYSTEM_PROCESSOR})
endif()
string(TOLOWER "${_qmm_proc}" _qmm_proc)

set(QMM_CPU_FEATURES ON)
if(_qmm_proc MATCHES "^(aarch64|arm64)$")
  set(QMM_ARCH aarch64)
  set(QMM_ISA_DIR arm64)
  # arm64 features reach a process through getauxval (Linux, Android),
  # through sysctlbyname (Apple), or not at all (the NEON baseline).
  if(APPLE)
    set(QMM_CPU_DETECT_SOURCE cpu_aarch64_apple.c)
    set(QMM_CPU_FEATURES OFF)
  else()
    check_symbol_exists(getauxval "sys/auxv.h" QMM_HAVE_GETAUXVAL)
    if(QMM_HAVE_GETAUXVAL)
      set(QMM_CPU_DETECT_SOURCE cpu_aarch64_auxv.c)
    else()
      set(QMM_CPU_DETECT_SOURCE cpu_aarch64_baseline.c)
      set(QMM_CPU_FEATURES OFF)
    endif()
  endif()
elseif(_qmm_proc MATCHES "^(x86_64|amd64)$")
  set(QMM_ARCH x86_64)
  set(QMM_CPU_DETECT_SOURCE cpu_x86_64.c)
  set(QMM_ISA_DIR x86_64)
else()
  set(QMM_ARCH other)
  set(QMM_CPU_DETECT_SOURCE cpu_other.c)
  set(QMM_CPU_FEATURES OFF)
  set(QMM_ISA_DIR)
endif()
message(STATUS "qmm: target architecture ${QMM_ARCH}, CPU detection platform/${QMM_CPU_DETECT_SOURCE}")
