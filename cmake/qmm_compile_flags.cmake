# Compiler flags of the whole build (included by the top-level CMakeLists.txt
# before any target): warnings, the optional sanitizers, and the optimization
# of the code whose speed is the library's (qmm_optimize_hot_code below).
#
#   QMM_WERROR          warnings are errors. scripts/test.sh sets it for every
#                       build; it is off by default so that a compiler newer
#                       than the project's does not break a user's build.
#   QMM_SANITIZE        sanitizers for everything built here (library, tests,
#                       bench), as -fsanitize= takes them: "address,undefined"
#                       or "thread"; empty for none. Errors end the program
#                       (-fno-sanitize-recover=all), so a ctest test fails.
#   QMM_HOT_CODE_FLAGS  optimization of the kernels and packers, whatever
#                       CMAKE_BUILD_TYPE or CFLAGS say (see below).

add_compile_options(-Wall -Wextra)
option(QMM_WERROR "Treat compiler warnings as errors" OFF)
if(QMM_WERROR)
  add_compile_options(-Werror)
endif()

set(QMM_SANITIZE "" CACHE STRING
  "Sanitizers for the whole build, as -fsanitize= takes them (address,undefined or thread); empty for none")
set(QMM_SANITIZE_FLAGS)
set(QMM_SANITIZE_TEST_ENVIRONMENT)
if(QMM_SANITIZE)
  set(QMM_SANITIZE_FLAGS -fsanitize=${QMM_SANITIZE} -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  add_compile_options(${QMM_SANITIZE_FLAGS})
  add_link_options(-fsanitize=${QMM_SANITIZE})
  # Run-time options of every test (qmm_add_test adds them). qmm answers a
  # workspace it cannot allocate with QMM_ERR_NO_MEMORY, and tests ask for
  # impossible sizes on purpose: malloc must then return NULL as it does
  # unsanitized, instead of the sanitizer ending the program.
  set(QMM_SANITIZE_TEST_ENVIRONMENT
    "ASAN_OPTIONS=allocator_may_return_null=1:detect_stack_use_after_return=1"
    "UBSAN_OPTIONS=print_stacktrace=1"
    "TSAN_OPTIONS=allocator_may_return_null=1:halt_on_error=1:suppressions=${PROJECT_SOURCE_DIR}/test/tsan.supp")
  message(STATUS "qmm: sanitizers ${QMM_SANITIZE}")
endif()

# The portable kernels are plain C whose speed is the compiler's vectorizer:
# gcc 12 at -O2 (RelWithDebInfo, Debian's CFLAGS) leaves the 3x4 kernel's dot
# products scalar (no pmaddwd), over ten times slower. Their flags therefore
# come last on their command lines, after the build type's and the user's.
# Empty leaves the hot code at the build type's optimization (for stepping
# through a kernel in a debugger).
set(QMM_HOT_CODE_FLAGS -O3 CACHE STRING
  "Optimization of the kernels and packers, whatever the build type")

# Gives the C files among the sources the hot-code flags (after any ISA flags
# already set on them).
function(qmm_optimize_hot_code)
  set(c_sources ${ARGN})
  list(FILTER c_sources INCLUDE REGEX "\\.c$")
  separate_arguments(flags UNIX_COMMAND "${QMM_HOT_CODE_FLAGS}")
  if(flags AND c_sources)
    set_property(SOURCE ${c_sources} TARGET_DIRECTORY qmm_objects APPEND
      PROPERTY COMPILE_OPTIONS ${flags})
  endif()
endfunction()
