# Which CPU detection and which kernel directory this target architecture uses.
#   QMM_CPU_DETECT_SOURCE  dispatch/ file that implements qmm_cpu_detect_hardware()
#   QMM_ARCH_KERNEL_GLOBS  kernel sources compiled in besides kernels/generic
string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" _qmm_proc)
if(_qmm_proc MATCHES "^(aarch64|arm64)$")
  set(QMM_ARCH aarch64)
  set(QMM_CPU_DETECT_SOURCE cpu_aarch64.c)
  set(QMM_ARCH_KERNEL_GLOBS
    ${PROJECT_SOURCE_DIR}/kernels/arm64/*.c
    ${PROJECT_SOURCE_DIR}/kernels/arm64/*.S)
elseif(_qmm_proc MATCHES "^(x86_64|amd64)$")
  set(QMM_ARCH x86_64)
  set(QMM_CPU_DETECT_SOURCE cpu_x86_64.c)
  set(QMM_ARCH_KERNEL_GLOBS ${PROJECT_SOURCE_DIR}/kernels/x86_64/*.c)
else()
  set(QMM_ARCH other)
  set(QMM_CPU_DETECT_SOURCE cpu_other.c)
  set(QMM_ARCH_KERNEL_GLOBS)
endif()
message(STATUS "qmm: target architecture ${QMM_ARCH}")
