# qmm_python_module(NAME SOURCES file... [LINK library...]): the Python
# extension module NAME, a NumPy binding, with qmm's static library (and the
# LINK libraries, themselves linked to it) inside. Included by qmm's own
# module (python/CMakeLists.txt) and the encoder example's
# (examples/encoder/python/CMakeLists.txt), after find_package(Python3 ...
# Development.Module NumPy) and qmm's project. setup.py (cmake_build.py)
# configures with QMM_PYTHON_MODULE, the path setuptools wants the module at.
function(qmm_python_module name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LINK")
  Python3_add_library(${name} MODULE WITH_SOABI ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE ${arg_LINK} qmm::qmm_static Python3::NumPy)
  # The module exports its init function alone: qmm's own symbols stay
  # inside, so it cannot clash with a libqmm another module of the process
  # loaded (each such module has its own copy of qmm, its thread count
  # included). Apple's linker names the one export; GNU ld and lld hide the
  # archives'.
  if(APPLE)
    target_link_options(${name} PRIVATE -Wl,-exported_symbol,_PyInit_${name})
  else()
    target_link_options(${name} PRIVATE -Wl,--exclude-libs,ALL)
  endif()
  target_compile_definitions(${name} PRIVATE NPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION)
  set_target_properties(${name} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
    C_VISIBILITY_PRESET hidden)
  target_compile_options(${name} PRIVATE -Wall -Wextra $<$<BOOL:${QMM_WERROR}>:-Werror>)
  if(QMM_PYTHON_MODULE)
    get_filename_component(dir ${QMM_PYTHON_MODULE} DIRECTORY)
    get_filename_component(file ${QMM_PYTHON_MODULE} NAME)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${dir}
      OUTPUT_NAME ${file} PREFIX "" SUFFIX "")
  endif()
endfunction()
