# The code on the pages stays true: every code block of README.md, docs/*.md,
# bench/README.md, python/README.md and examples/*/README.md is run by the
# test suite or says, in its first line, why not. docs/testing.md ("Code on
# the pages") explains the convention to a writer; in short, a fenced block is
#
#   <!-- test: c NAME -->        (the line before a ```c block) a whole
#                                program, compiled against qmm and run as the
#                                test test_doc_<page>_<NAME>; exit status 0
#                                is a pass (qmm_doc_examples, below)
#   <!-- test: python NAME -->   (before a ```python block) run by pytest
#                                (python/tests/test_readme_example.py) in the
#                                Python package's environment
#   <!-- test: sh NAME -->       (before a ```sh or ```cmake block) run by
#   <!-- test: cmake NAME -->    a test of its own that reads the block with
#                                qmm_doc_block: the front page's build
#                                (test_doc_readme_build), the installed
#                                package's consumer (test_install)
#   a block whose first line is a comment "not run by the tests: <why>"
#                                (# ..., // ... or /* ... */): needs the
#                                network, root, hardware or a long run
#   ```text                      output or a listing, not code
#
# <page> is `readme` for README.md, NAME for docs/NAME.md, the directory's
# name for <dir>/README.md (dashes as underscores). test_doc_blocks
# (test/docs/check_doc_blocks.cmake) fails on any other block, and on an sh
# or cmake block marked for a test that no test reads.
#
# docs/design.md and docs/float_gemm.md are outside the convention: their
# blocks are a source tree, a loop nest, a signature and formulas.
#
# The functions work in CMake's script mode too (the tests' scripts include
# this file).

set(QMM_DOC_UNCHECKED docs/design.md docs/float_gemm.md)

# qmm_doc_pages(<out> <root>): the pages under the convention, relative to
# the source tree <root>.
function(qmm_doc_pages out root)
  file(GLOB pages RELATIVE ${root} ${root}/README.md ${root}/docs/*.md ${root}/bench/README.md
    ${root}/python/README.md ${root}/examples/*/README.md)
  list(REMOVE_ITEM pages ${QMM_DOC_UNCHECKED})
  list(SORT pages)
  set(${out} ${pages} PARENT_SCOPE)
endfunction()

# qmm_doc_page_id(<out> <page>): the page's part of its tests' names.
function(qmm_doc_page_id out page)
  if(page STREQUAL "README.md")
    set(id readme)
  elseif(page MATCHES "^docs/(.+)\\.md$")
    set(id ${CMAKE_MATCH_1})
  elseif(page MATCHES "([^/]+)/README\\.md$")
    set(id ${CMAKE_MATCH_1})
  else()
    message(FATAL_ERROR "qmm: ${page} is not a page (cmake/qmm_doc_examples.cmake)")
  endif()
  string(REPLACE "-" "_" id "${id}")
  set(${out} ${id} PARENT_SCOPE)
endfunction()

# qmm_doc_block(<out> <file> <lang> <name>): the code of the block that
# follows the line <!-- test: <lang> <name> --> in <file> (an absolute path),
# with its final newline. Fails when there is no such block.
function(qmm_doc_block out file lang name)
  file(READ ${file} text)
  set(opening "<!-- test: ${lang} ${name} -->\n```${lang}\n")
  string(FIND "${text}" "${opening}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "qmm: ${file} has no block marked <!-- test: ${lang} ${name} --> "
      "on the line before its ```${lang} (docs/testing.md, \"Code on the pages\")")
  endif()
  string(LENGTH "${opening}" skip)
  math(EXPR at "${at} + ${skip}")
  string(SUBSTRING "${text}" ${at} -1 text)
  # The closing fence begins a line: the block is empty, or ends with "\n```".
  string(FIND "${text}" "```" end)
  if(NOT end EQUAL 0)
    string(FIND "${text}" "\n```" end)
    if(end EQUAL -1)
      message(FATAL_ERROR "qmm: ${file}: the block ${lang} ${name} is not closed")
    endif()
    math(EXPR end "${end} + 1")
  endif()
  string(SUBSTRING "${text}" 0 ${end} code)
  set(${out} "${code}" PARENT_SCOPE)
  # The sh and cmake blocks that tests read, for test_doc_blocks.
  if(NOT CMAKE_SCRIPT_MODE_FILE AND NOT lang STREQUAL "c")
    file(RELATIVE_PATH page ${PROJECT_SOURCE_DIR} ${file})
    set_property(GLOBAL APPEND PROPERTY QMM_DOC_BLOCKS_READ "${page}:${lang}:${name}")
  endif()
endfunction()

# qmm_doc_write(<file> <content>): writes the file unless it holds the
# content already, so that a reconfigure rebuilds nothing else.
function(qmm_doc_write file content)
  set(old "")
  if(EXISTS ${file})
    file(READ ${file} old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE ${file} "${content}")
  endif()
endfunction()

# qmm_doc_examples(): every page's C programs (<!-- test: c NAME -->) as
# tests, test_doc_<page>_<NAME>, compiled in <build>/test/doc_examples/ and
# linked with the static library, run natively or on each emulated CPU as
# any test (qmm_add_test). The pages are configure dependencies: an edited
# block is compiled again by the next build.
function(qmm_doc_examples)
  qmm_doc_pages(pages ${PROJECT_SOURCE_DIR})
  # A page added later reconfigures the build too.
  file(GLOB unused CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md
    ${PROJECT_SOURCE_DIR}/examples/*/README.md)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/doc_examples)
  foreach(page IN LISTS pages)
    set(file ${PROJECT_SOURCE_DIR}/${page})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
    qmm_doc_page_id(id ${page})
    file(READ ${file} text)
    # Markers alone on their line, before their block (a page may quote one).
    string(REGEX MATCHALL "\n<!-- test: c [A-Za-z0-9_]+ -->\n```c\n" markers "\n${text}")
    foreach(marker IN LISTS markers)
      string(REGEX REPLACE "^\n<!-- test: c ([A-Za-z0-9_]+) -->\n.*$" "\\1" name "${marker}")
      set(test test_doc_${id}_${name})
      qmm_doc_block(code ${file} c ${name})
      qmm_doc_write(${dir}/${test}.c "${code}")
      add_executable(${test} ${dir}/${test}.c)
      target_link_libraries(${test} PRIVATE qmm_static)
      qmm_add_test(NAME ${test} COMMAND ${test})
    endforeach()
  endforeach()
endfunction()

# qmm_doc_blocks_test(): test_doc_blocks, every block of every page checked
# against the convention. Called after the tests that read sh and cmake
# blocks are registered (it is given the list of what they read).
function(qmm_doc_blocks_test)
  get_property(read GLOBAL PROPERTY QMM_DOC_BLOCKS_READ)
  list(JOIN read "," read)
  qmm_add_test(NAME test_doc_blocks ONCE COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${PROJECT_SOURCE_DIR} "-DBLOCKS_READ=${read}"
    -P ${PROJECT_SOURCE_DIR}/test/docs/check_doc_blocks.cmake)
endfunction()
