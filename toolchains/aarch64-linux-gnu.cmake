# Cross build for arm64 Linux with gcc on an x86_64 Debian host; tests run
# under QEMU user mode (the emulator and the rest both toolchains share:
# aarch64-linux-gnu-common.cmake).
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER aarch64-linux-gnu-gcc)
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-linux-gnu-common.cmake)
