# Assembles every arm64 kernel (kernels/arm64/*.S) with clang for each object
# format and checks each object's symbol table: the names the C side calls
# for that file and nothing else. Run by ctest as
#   cmake -DSOURCE_DIR=<repository> -DWORK_DIR=<scratch> -DCLANG=... -DLLVM_NM=...
#         -DLLVM_READOBJ=... -P check_arm64_symbols.cmake
#
# The names the C side calls: dispatch/registry.c declares, for each entry
# QMM_KERNEL(name, RUN_ROWS, HOOKS, RUN_OVERLAP, U8A, .field = ...) of
# dispatch/kernel_list.h (each word or its NO_ form), qmm_<name>_run,
# qmm_<name>_run_rows (RUN_ROWS), qmm_<name>_run_overlap (RUN_OVERLAP),
# qmm_<name>_begin and _end (HOOKS), and the same microkernels again as
# qmm_<name>_u8a_... (U8A). A file kernels/arm64/<file>.S is the code of the
# entry named arm64_<file>.
#
# Checked in each object:
#  - llvm-nm lists exactly those names, with Mach-O's leading underscore:
#    no local label leaked into the symbol table, none missing, none extra.
#    LLVM's Mach-O writer adds one linker-private symbol per section, ltmp<N>,
#    to every object it writes, C ones too; those are allowed.
#  - each name is a global function hidden from the library's users:
#    ELF: FUNC, GLOBAL, HIDDEN, with its size; Mach-O: private external;
#    COFF: external, of function type.
#  - ELF: the .note.GNU-stack section that keeps the stack non-executable.

set(targets
  "arm64-apple-macos12:macho"
  "arm64-apple-ios15:macho"
  "aarch64-linux-android:elf"
  "aarch64-pc-windows-msvc:coff")
# Every extension any kernel file needs (what cmake/kernels_arm64.cmake gives
# each file, together; armv9-a brings dotprod and SVE2): clang's assembler
# ignores the `.arch +ext` lines.
set(march -march=armv9-a+i8mm+sme)

function(fail message)
  message(SEND_ERROR "${message}")
endfunction()

function(run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output
    ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    string(JOIN " " command ${ARGN})
    message(FATAL_ERROR "${command}: exit status ${status}\n${errors}")
  endif()
  set(${out} "${output}" PARENT_SCOPE)
endfunction()

# The kernel entries as the arm64 build sees them, every extension built:
# the name and the four words, one line each (the named fields are not read).
file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/lines.c
  "#define QMM_KERNEL(name, rows, hooks, overlap, u8a, ...) \\\n"
  "    qmm_kernel_line name rows hooks overlap u8a ;\n"
  "#include \"kernel_list.h\"\n")
run(lines ${CLANG} --target=aarch64-linux-android -E -P -DQMM_HAVE_DOTPROD=1
  -DQMM_HAVE_I8MM=1 -DQMM_HAVE_SVE=1 -DQMM_HAVE_SVE_I8MM=1 -DQMM_HAVE_SME=1 -I${SOURCE_DIR}/dispatch ${WORK_DIR}/lines.c)
string(REGEX MATCHALL "qmm_kernel_line [^;]*" lines "${lines}")

# The names the C side calls for kernel `kernel`, sorted, into out (empty when
# kernel_list.h has no such entry).
function(expected_names out kernel)
  set(names)
  foreach(line IN LISTS lines)
    separate_arguments(fields UNIX_COMMAND "${line}")
    list(GET fields 1 name)
    if(NOT name STREQUAL kernel)
      continue()
    endif()
    list(GET fields 2 rows)
    list(GET fields 3 hooks)
    list(GET fields 4 overlap)
    list(GET fields 5 u8a)
    set(microkernels run)
    if(rows STREQUAL "RUN_ROWS")
      list(APPEND microkernels run_rows)
    endif()
    if(overlap STREQUAL "RUN_OVERLAP")
      list(APPEND microkernels run_overlap)
    endif()
    foreach(m IN LISTS microkernels)
      list(APPEND names qmm_${name}_${m})
      if(u8a STREQUAL "U8A")
        list(APPEND names qmm_${name}_u8a_${m})
      endif()
    endforeach()
    if(hooks STREQUAL "HOOKS")
      list(APPEND names qmm_${name}_begin qmm_${name}_end)
    endif()
  endforeach()
  list(SORT names)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

file(GLOB sources ${SOURCE_DIR}/kernels/arm64/*.S)
if(NOT sources)
  message(FATAL_ERROR "no kernels/arm64/*.S under ${SOURCE_DIR}")
endif()
foreach(source IN LISTS sources)
  get_filename_component(file ${source} NAME_WE)
  expected_names(names arm64_${file})
  if(NOT names)
    fail("kernels/arm64/${file}.S: dispatch/kernel_list.h has no entry arm64_${file}")
    continue()
  endif()
  foreach(entry IN LISTS targets)
    string(REPLACE ":" ";" entry ${entry})
    list(GET entry 0 target)
    list(GET entry 1 format)
    set(object ${WORK_DIR}/${file}-${target}.o)
    set(what "kernels/arm64/${file}.S for ${target}")
    run(ignored ${CLANG} --target=${target} ${march} -c ${source} -o ${object})

    set(want ${names})
    if(format STREQUAL "macho")
      list(TRANSFORM want PREPEND _)
    endif()
    run(listing ${LLVM_NM} --just-symbol-name ${object})
    string(REGEX REPLACE "\n$" "" listing "${listing}")
    string(REPLACE "\n" ";" got "${listing}")
    if(format STREQUAL "macho")
      list(FILTER got EXCLUDE REGEX "^ltmp[0-9]+$")
    endif()
    list(SORT got)
    if(NOT got STREQUAL want)
      fail("${what}: symbols [${got}], expected [${want}]")
      continue()
    endif()

    if(format STREQUAL "elf")
      run(table ${LLVM_READOBJ} --elf-output-style=GNU --symbols --section-headers ${object})
      foreach(name IN LISTS want)
        if(NOT table MATCHES "[ \t][1-9][0-9]* FUNC +GLOBAL +HIDDEN +[0-9]+ ${name}\n")
          fail("${what}: ${name} is not a hidden global function with a size:\n${table}")
        endif()
      endforeach()
      if(NOT table MATCHES "\\.note\\.GNU-stack")
        fail("${what}: no .note.GNU-stack section (the linker would make the stack executable)")
      endif()
    elseif(format STREQUAL "macho")
      run(table ${LLVM_NM} -m ${object})
      foreach(name IN LISTS want)
        if(NOT table MATCHES "\\(__TEXT,__text\\) private external ${name}\n")
          fail("${what}: ${name} is not a private external in __text:\n${table}")
        endif()
      endforeach()
    else()
      run(table ${LLVM_READOBJ} --symbols ${object})
      foreach(name IN LISTS want)
        string(REGEX MATCH "Name: ${name}\n[^}]*}" symbol "${table}")
        if(NOT symbol MATCHES "StorageClass: External" OR
           NOT symbol MATCHES "ComplexType: Function")
          fail("${what}: ${name} is not an external function:\n${table}")
        endif()
      endforeach()
    endif()
  endforeach()
endforeach()
