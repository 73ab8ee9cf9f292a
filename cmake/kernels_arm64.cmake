# arm64 kernels (kernels/arm64/), included by the top-level CMakeLists.txt after
# it has globbed them into QMM_KERNEL_SOURCES and before it adds them to
# qmm_objects.
#
# The SMLAL and 64x1 kernels are baseline Armv8.0 NEON and need nothing. The
# others use an architecture extension their assembler must know: FEAT_DotProd
# (binutils >= 2.30) for the SDOT kernels, FEAT_I8MM (binutils >= 2.33) for
# the SMMLA kernel, FEAT_SVE (binutils >= 2.28) for the SVE SDOT kernels, SVE
# with I8MM for the SVE SMMLA kernel, FEAT_SME (binutils >= 2.38, clang >= 14)
# for the SMOPA kernel. An assembler that does not must not break the build, so
# each extension has a gate (qmm_arm64_extension_gate below): a tiny .S file
# with the kernels' directive and one of their instructions is assembled
# first. Without it, the extension's files leave the build and their registry
# entries stay out (QMM_HAVE_<EXT> guards them in dispatch/kernel_list.h):
# dispatch then falls back to the tier below.
#
# QMM_ARM64_<EXT> (cached, ON/OFF) is each gate's result; preset it to OFF to
# build as an old assembler would. test/arm64/ reads them too.

# Assembles a probe with `.arch <arch>` and <instruction>, with extra compile
# options (a list) if given; sets result to whether it assembled.
function(_qmm_arm64_probe result ext arch instruction)
  set(dir ${PROJECT_BINARY_DIR}/CMakeFiles/qmm_${ext}_probe)
  file(WRITE ${dir}/probe.S
    "        .arch   ${arch}\n"
    "        .text\n"
    "        .global qmm_${ext}_probe\n"
    "qmm_${ext}_probe:\n"
    "        ${instruction}\n"
    "        ret\n")
  # A static library: nothing to link, only to assemble.
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  try_compile(ok ${dir}/build SOURCES ${dir}/probe.S
    COMPILE_DEFINITIONS ${ARGN}
    OUTPUT_VARIABLE log)
  if(NOT ok)
    string(REGEX MATCH "[^\n]*(rror|requires)[^\n]*" first_error "${log}")
    if(ARGN)
      set(how "with ${ARGN}")
    else()
      set(how "with the directive alone")
    endif()
    message(STATUS "qmm: ${ext}: '${instruction}' does not assemble ${how}: ${first_error}")
  endif()
  set(${result} ${ok} PARENT_SCOPE)
endfunction()

# qmm_arm64_extension_gate(<ext> ARCH <arch> PROBE <instruction>
#                          SOURCES <kernel files...> FALLBACK <text>)
#
# Builds the kernel files that use extension <ext> (their .S files say
# `.arch <arch>`) only if the assembler accepts <instruction> under that
# directive. The directive alone is enough for binutils; clang's integrated
# assembler (14 at least) ignores the +<ext> of .arch and knows no
# `.arch_extension` for these either: it needs -march=<arch> on the command
# line, which then goes on these files only. Result: the cached option
# QMM_ARM64_<EXT>, and the definition QMM_HAVE_<EXT> on qmm_objects when ON;
# when OFF the files are removed from QMM_KERNEL_SOURCES.
function(qmm_arm64_extension_gate ext)
  cmake_parse_arguments(G "" "ARCH;PROBE;FALLBACK" "SOURCES" ${ARGN})
  string(TOUPPER ${ext} EXT)
  set(option QMM_ARM64_${EXT})
  set(march -march=${G_ARCH})
  if(NOT DEFINED ${option})
    _qmm_arm64_probe(plain ${ext} ${G_ARCH} "${G_PROBE}")
    set(needs_march OFF)
    if(NOT plain)
      _qmm_arm64_probe(flagged ${ext} ${G_ARCH} "${G_PROBE}" ${march})
      set(needs_march ${flagged})
    endif()
    if(plain OR flagged)
      set(default ON)
    else()
      set(default OFF)
    endif()
    set(${option} ${default} CACHE BOOL
      "Build the ${ext} kernels (the assembler accepts .arch ${G_ARCH} and ${G_PROBE})")
    set(${option}_MARCH ${needs_march} CACHE BOOL
      "Assemble the ${ext} kernels with ${march} (clang's assembler needs it)")
    mark_as_advanced(${option}_MARCH)
  endif()

  if(${option})
    if(${option}_MARCH)
      message(STATUS "qmm: arm64 ${ext} kernels enabled, assembled with ${march}")
      set_property(SOURCE ${G_SOURCES} TARGET_DIRECTORY qmm_objects
        APPEND PROPERTY COMPILE_OPTIONS ${march})
    else()
      message(STATUS "qmm: arm64 ${ext} kernels enabled (the assembler supports ${ext})")
    endif()
    target_compile_definitions(qmm_objects PRIVATE QMM_HAVE_${EXT}=1)
  else()
    message(STATUS "qmm: arm64 ${ext} kernels disabled: the assembler does not accept "
      "'.arch ${G_ARCH}' / ${G_PROBE} or ${option}=OFF; ${G_FALLBACK}")
    set(sources ${QMM_KERNEL_SOURCES})
    list(REMOVE_ITEM sources ${G_SOURCES})
    foreach(file IN LISTS G_SOURCES)
      if(file IN_LIST sources)
        message(FATAL_ERROR "qmm: could not remove ${file} from QMM_KERNEL_SOURCES")
      endif()
    endforeach()
    set(QMM_KERNEL_SOURCES ${sources} PARENT_SCOPE)
  endif()
endfunction()

set(_qmm_arm64 ${PROJECT_SOURCE_DIR}/kernels/arm64)
qmm_arm64_extension_gate(dotprod
  ARCH armv8.2-a+dotprod
  PROBE "sdot v16.4s, v0.16b, v4.4b[3]"
  SOURCES ${_qmm_arm64}/mmm_i8i32_8x8_sdot.S ${_qmm_arm64}/mmv_i8i32_8x1_sdot.S
  FALLBACK "dispatch falls back to the SMLAL kernel and the 64x1 GEMV")
qmm_arm64_extension_gate(i8mm
  ARCH armv8.2-a+i8mm
  PROBE "smmla v16.4s, v0.16b, v4.16b"
  SOURCES ${_qmm_arm64}/mmm_i8i32_8x8_smmla.S
  FALLBACK "dispatch falls back to the SDOT kernel")
qmm_arm64_extension_gate(sve
  ARCH armv8.2-a+sve
  PROBE "sdot z16.s, z0.b, z4.b[3]"
  SOURCES ${_qmm_arm64}/mmm_i8i32_8x2vl_sve_sdot.S ${_qmm_arm64}/mmv_i8i32_4vlx1_sve_sdot.S
  FALLBACK "dispatch falls back to the NEON kernels")
# Armv8.6-A, whose I8MM is mandatory: clang 14 drops the +i8mm of a `.arch
# armv8.2-a+sve+i8mm` line for SVE's SMMLA (not for NEON's).
qmm_arm64_extension_gate(sve_i8mm
  ARCH armv8.6-a+sve
  PROBE "smmla z16.s, z0.b, z4.b"
  SOURCES ${_qmm_arm64}/mmm_i8i32_8x2vl_sve_smmla.S
  FALLBACK "dispatch falls back to the NEON SMMLA kernel")
qmm_arm64_extension_gate(sme
  ARCH armv9-a+sme
  PROBE "smopa za0.s, p0/m, p1/m, z0.b, z1.b"
  SOURCES ${_qmm_arm64}/mmm_i8i32_2vlx2vl_sme_smopa.S
  FALLBACK "dispatch falls back to the SVE and NEON kernels")

# The GEMV kernel keeps 16 accumulators, 4 A vectors and their widened halves
# live across an 8-depth unrolled loop. gcc's scheduling before register
# allocation stretches those live ranges past the 32 vector registers: 233
# instructions per 8 depths (with 11 moves and split loads) instead of 215.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/kernels/arm64/mmv_i8i32_64x1.c
    TARGET_DIRECTORY qmm_objects
    APPEND PROPERTY COMPILE_OPTIONS -fno-schedule-insns)
endif()
