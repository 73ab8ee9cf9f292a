# ctest script: install the build tree into a fresh prefix, then build and run
# the consumer project against it. Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR,
# EXAMPLE_SOURCE, LIBDIR (CMAKE_INSTALL_LIBDIR, relative to the prefix),
# CONSUMER_FLAGS (compile and link flags of the consumer; a sanitized qmm's),
# COMPILER (the library's C compiler: a static qmm needs the OpenMP run-time
# of the compiler that built it, gcc's libgomp or clang's libomp).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
set(flags)
if(CONSUMER_FLAGS)
  set(flags "-DCMAKE_C_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_RPATH=${prefix}/${LIBDIR} -DEXAMPLE_SOURCE=${EXAMPLE_SOURCE}
    -DCMAKE_C_COMPILER=${COMPILER} ${flags})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
foreach(exe consumer_shared consumer_static consumer_pkgconfig)
  run(${WORK_DIR}/build/${exe})
endforeach()
