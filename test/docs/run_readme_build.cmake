# test_doc_readme_build: the front page's plain build as a user runs it.
# The block marked <!-- test: sh build --> in README.md runs line by line in
# sh -e, in WORK_DIR (emptied first) with HOME=WORK_DIR, so that its build
# directory and its install prefix land there; README.md's C example
# (<!-- test: c product -->) is WORK_DIR/example.c, as the page tells the
# reader to save it. Two substitutions only: the source directory, `-S .`,
# is SOURCE_DIR (configured in place, nothing copied); and ctest lists the
# build's tests (`ctest -N`) instead of running them from inside ctest.
# Everything else runs as printed: the configure, the build, the install,
# the compile line with pkg-config and the example; a line that fails fails
# the test.
# Variables: SOURCE_DIR, the checkout; WORK_DIR.
cmake_minimum_required(VERSION 3.25)
include(${SOURCE_DIR}/cmake/qmm_doc_examples.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

qmm_doc_block(example ${SOURCE_DIR}/README.md c product)
file(WRITE ${WORK_DIR}/example.c "${example}")
qmm_doc_block(commands ${SOURCE_DIR}/README.md sh build)

# Substitutes `to` for `from` in the commands, which must contain it.
function(substitute from to)
  string(FIND "${commands}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md's build block no longer says '${from}': "
      "test/docs/run_readme_build.cmake substitutes it, and must follow the page")
  endif()
  string(REPLACE "${from}" "${to}" commands "${commands}")
  set(commands "${commands}" PARENT_SCOPE)
endfunction()
substitute("cmake -S . " "cmake -S '${SOURCE_DIR}' ")
substitute("ctest --test-dir " "ctest -N --test-dir ")
# Each line's status counts, even where it is an && list (which sh -e lets
# fail when a command before the last fails): a line that ends a command
# gets "|| exit $?".
string(REGEX REPLACE "([^\\|&\n])\n" "\\1 || exit $?\n" script "${commands}")
file(WRITE ${WORK_DIR}/commands.sh "${script}")

message("README.md's build, in ${WORK_DIR}:\n${commands}")
# The build on every core, through the environment a user may set too
# (CMAKE_BUILD_PARALLEL_LEVEL), the commands unchanged: the whole tree's serial
# build would be most of the suite's time.
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
execute_process(COMMAND ${CMAKE_COMMAND} -E env HOME=${WORK_DIR} CMAKE_BUILD_PARALLEL_LEVEL=${cores}
  sh -ex ${WORK_DIR}/commands.sh
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "README.md's build failed (${rc})")
endif()
# The listing names the build's tests.
if(NOT out MATCHES "Total Tests: [1-9]")
  message("${out}")
  message(FATAL_ERROR "README.md's build registered no tests")
endif()
string(REGEX MATCH "[^\n]*\n[^\n]*\n$" last "${out}")
message("passed; the example printed:\n${last}")
file(REMOVE_RECURSE ${WORK_DIR})
