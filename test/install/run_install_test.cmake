# ctest script: install the build tree into a fresh prefix, then build and run
# the consumer projects against it: test/install's, and docs/building.md's as
# printed. Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, EXAMPLE_SOURCE
# (README.md's example), PAGE_CONSUMER (docs/building.md's CMakeLists.txt,
# which builds example.c), LIBDIR (CMAKE_INSTALL_LIBDIR, relative to the prefix),
# CONSUMER_FLAGS (compile and link flags of the consumer; a sanitized qmm's),
# COMPILER (the library's C compiler: a static qmm needs the OpenMP run-time
# of the compiler that built it, gcc's libgomp or clang's libomp).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

# Runs a command; its output, stdout and stderr together, is left in `output`
# and shown if it fails.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
# The user's machine has no cpu_features: the installed package must not need
# it, wherever qmm's build found it (in a prefix of its own, say). The
# consumer's CMake may not look for it, and since this machine's linker would
# still find the library on its default path, every link lists the files it
# opens (--trace), none of which may be cpu_features'.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_DISABLE_FIND_PACKAGE_CpuFeatures=ON
    "-DCMAKE_C_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS} -Wl,--trace"
    -DCMAKE_BUILD_RPATH=${prefix}/${LIBDIR} -DEXAMPLE_SOURCE=${EXAMPLE_SOURCE}
    -DCMAKE_C_COMPILER=${COMPILER})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
string(REGEX MATCHALL "[^\n]*libcpu_features[^\n]*" opened "${output}")
if(opened)
  list(JOIN opened "\n" opened)
  message(FATAL_ERROR "a consumer's link opened cpu_features:\n${opened}")
endif()
foreach(exe consumer_shared consumer_static consumer_pkgconfig consumer_pkgconfig_static)
  run(${WORK_DIR}/build/${exe})
endforeach()

# docs/building.md's project as a user writes it from the page: its
# CMakeLists.txt and example.c (README.md's example) in a directory of their
# own, configured with the prefix on CMAKE_PREFIX_PATH; the build's compiler
# and flags as above (CMake gives the program the library's directory as its
# build RPATH).
file(READ ${PAGE_CONSUMER} page_project)
if(NOT page_project MATCHES "add_executable\\(([A-Za-z0-9_]+)")
  message(FATAL_ERROR "docs/building.md's consumer has no add_executable(NAME ...)")
endif()
set(page_program ${CMAKE_MATCH_1})
set(page_dir ${WORK_DIR}/page-consumer)
file(MAKE_DIRECTORY ${page_dir})
configure_file(${PAGE_CONSUMER} ${page_dir}/CMakeLists.txt COPYONLY)
configure_file(${EXAMPLE_SOURCE} ${page_dir}/example.c COPYONLY)
run(${CMAKE_COMMAND} -S ${page_dir} -B ${page_dir}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_DISABLE_FIND_PACKAGE_CpuFeatures=ON "-DCMAKE_C_FLAGS=${CONSUMER_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}" -DCMAKE_C_COMPILER=${COMPILER})
run(${CMAKE_COMMAND} --build ${page_dir}/build)
run(${page_dir}/build/${page_program})
