# ISA flags of the x86_64 kernels and bulk packers (included by the top-level
# CMakeLists.txt). The library targets baseline x86-64; only the files that run
# behind an AVX2 check (the registry's for kernels, pack/bulk.c's for packers)
# are compiled for AVX2 (*_avx2.c). No file here uses FMA, AVX-512 or VNNI.
foreach(source IN LISTS QMM_ISA_SOURCES)
  if(source MATCHES "_avx2\\.c$")
    set_source_files_properties(${source} TARGET_DIRECTORY qmm_objects
      PROPERTIES COMPILE_OPTIONS "-mavx2")
  endif()
endforeach()
