# ctest script: install the build tree into a fresh prefix, then build and run
# the consumer project against it. Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR,
# EXAMPLE_SOURCE, LIBDIR (CMAKE_INSTALL_LIBDIR, relative to the prefix),
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
