# arm64 kernels (kernels/arm64/), included by the top-level CMakeLists.txt after
# it has globbed them into QMM_KERNEL_SOURCES and before it adds them to
# qmm_objects.
#
# The SMLAL and GEMV kernels are baseline Armv8.0 NEON and need nothing. The
# SDOT kernel needs an assembler that knows FEAT_DotProd (binutils >= 2.30):
# one that does not must not break the build, so a tiny .S file with the
# kernel's own directive is assembled first. Without it, the kernel's file
# leaves the build and its registry line stays out (QMM_HAVE_DOTPROD guards it
# in dispatch/kernel_list.h): dispatch then falls back to SMLAL.
#
# QMM_ARM64_DOTPROD (cached, ON/OFF) is the result; preset it to OFF to build
# as an old assembler would. test/arm64/ reads it too.

set(_qmm_sdot_source ${PROJECT_SOURCE_DIR}/kernels/arm64/mmm_i8i32_8x8_sdot.S)

# Assembles the probe, with extra compile options (a list) if given.
function(_qmm_probe_sdot result)
  set(dir ${PROJECT_BINARY_DIR}/CMakeFiles/qmm_dotprod_probe)
  file(WRITE ${dir}/sdot.S
    "        .arch   armv8.2-a+dotprod\n"
    "        .text\n"
    "        .global qmm_dotprod_probe\n"
    "qmm_dotprod_probe:\n"
    "        sdot    v16.4s, v0.16b, v4.4b[3]\n"
    "        ret\n")
  # A static library: nothing to link, only to assemble.
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  try_compile(ok ${dir}/build SOURCES ${dir}/sdot.S
    COMPILE_DEFINITIONS ${ARGN}
    OUTPUT_VARIABLE log)
  if(NOT ok)
    string(REGEX MATCH "[^\n]*(rror|requires)[^\n]*" first_error "${log}")
    if(ARGN)
      set(how "with ${ARGN}")
    else()
      set(how "with the directive alone")
    endif()
    message(STATUS "qmm: sdot does not assemble ${how}: ${first_error}")
  endif()
  set(${result} ${ok} PARENT_SCOPE)
endfunction()

# The directive alone is enough for binutils >= 2.30. clang's integrated
# assembler (14 at least) ignores the +dotprod of .arch and knows no
# `.arch_extension dotprod` either: it needs the flag on the command line,
# which then goes on the SDOT file only.
set(_qmm_sdot_march -march=armv8.2-a+dotprod)
if(NOT DEFINED QMM_ARM64_DOTPROD)
  _qmm_probe_sdot(_qmm_sdot_plain)
  set(_qmm_sdot_needs_march OFF)
  if(NOT _qmm_sdot_plain)
    _qmm_probe_sdot(_qmm_sdot_flagged ${_qmm_sdot_march})
    set(_qmm_sdot_needs_march ${_qmm_sdot_flagged})
  endif()
  if(_qmm_sdot_plain OR _qmm_sdot_flagged)
    set(_qmm_sdot_default ON)
  else()
    set(_qmm_sdot_default OFF)
  endif()
  set(QMM_ARM64_DOTPROD ${_qmm_sdot_default} CACHE BOOL
    "Build the SDOT kernel (the assembler accepts .arch armv8.2-a+dotprod and sdot)")
  set(QMM_ARM64_DOTPROD_MARCH ${_qmm_sdot_needs_march} CACHE BOOL
    "Assemble the SDOT kernel with ${_qmm_sdot_march} (clang's assembler needs it)")
  mark_as_advanced(QMM_ARM64_DOTPROD_MARCH)
endif()

if(QMM_ARM64_DOTPROD)
  if(QMM_ARM64_DOTPROD_MARCH)
    message(STATUS "qmm: arm64 SDOT kernel enabled, assembled with ${_qmm_sdot_march}")
  else()
    message(STATUS "qmm: arm64 SDOT kernel enabled (the assembler supports dotprod)")
  endif()
  target_compile_definitions(qmm_objects PRIVATE QMM_HAVE_DOTPROD=1)
  if(QMM_ARM64_DOTPROD_MARCH)
    set_property(SOURCE ${_qmm_sdot_source} TARGET_DIRECTORY qmm_objects
      APPEND PROPERTY COMPILE_OPTIONS ${_qmm_sdot_march})
  endif()
else()
  message(STATUS "qmm: arm64 SDOT kernel disabled: the assembler does not accept "
    "'.arch armv8.2-a+dotprod' / sdot (binutils >= 2.30 needed) or QMM_ARM64_DOTPROD=OFF; "
    "dispatch falls back to the SMLAL kernel")
  list(REMOVE_ITEM QMM_KERNEL_SOURCES ${_qmm_sdot_source})
  if(_qmm_sdot_source IN_LIST QMM_KERNEL_SOURCES)
    message(FATAL_ERROR "qmm: could not remove ${_qmm_sdot_source} from QMM_KERNEL_SOURCES")
  endif()
endif()

# The GEMV kernel keeps 16 accumulators, 4 A vectors and their widened halves
# live across an 8-depth unrolled loop. gcc's scheduling before register
# allocation stretches those live ranges past the 32 vector registers: 233
# instructions per 8 depths (with 11 moves and split loads) instead of 215.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/kernels/arm64/mmv_i8i32_64x1.c
    TARGET_DIRECTORY qmm_objects
    APPEND PROPERTY COMPILE_OPTIONS -fno-schedule-insns)
endif()
