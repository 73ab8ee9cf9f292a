# ISA flags of the x86_64 kernels, bulk packers and output stages (included by the top-level
# CMakeLists.txt). The library targets baseline x86-64; only the files that run
# behind a CPU check (the registry's for kernels, pack/bulk.c's for packers,
# output/epilogue.c's for the stage)
# are compiled for their ISA, named by the end of the file name: *_avx2.c for
# AVX2, *_avx512.c for AVX-512 F/BW/VL (code without VNNI instructions, run
# behind the VNNI tier all the same), *_avx512vnni.c for AVX-512 F/BW/VL +
# VNNI, *_amx.c for AMX-TILE + AMX-INT8 (the only files that may hold a tile
# instruction). No file here uses FMA.
foreach(source IN LISTS QMM_ISA_SOURCES)
  if(source MATCHES "_avx2\\.c$")
    set_property(SOURCE ${source} TARGET_DIRECTORY qmm_objects
      APPEND PROPERTY COMPILE_OPTIONS -mavx2)
  elseif(source MATCHES "_avx512\\.c$")
    set_property(SOURCE ${source} TARGET_DIRECTORY qmm_objects
      APPEND PROPERTY COMPILE_OPTIONS -mavx512f -mavx512bw -mavx512vl)
  elseif(source MATCHES "_avx512vnni\\.c$")
    set_property(SOURCE ${source} TARGET_DIRECTORY qmm_objects
      APPEND PROPERTY COMPILE_OPTIONS -mavx512f -mavx512bw -mavx512vl -mavx512vnni)
  elseif(source MATCHES "_amx\\.c$")
    set_property(SOURCE ${source} TARGET_DIRECTORY qmm_objects
      APPEND PROPERTY COMPILE_OPTIONS -mamx-tile -mamx-int8)
  endif()
endforeach()
