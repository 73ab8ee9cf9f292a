# ISA flags of the x86_64 kernels (included by the top-level CMakeLists.txt).
# The library targets baseline x86-64; only the files that the registry runs
# behind an AVX2 check are compiled for AVX2 (*_avx2.c). No file here uses FMA,
# AVX-512 or VNNI.
foreach(source IN LISTS QMM_ISA_KERNEL_SOURCES)
  if(source MATCHES "_avx2\\.c$")
    set_source_files_properties(${source} TARGET_DIRECTORY qmm_objects
      PROPERTIES COMPILE_OPTIONS "-mavx2")
  endif()
endforeach()
