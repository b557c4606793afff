# Link options for wasm executables that run under Node (GoogleTest suites, benchmarks).
function(quiver_wasm_test_link_options target)
  target_link_options(${target} PRIVATE
    -sENVIRONMENT=node -sEXIT_RUNTIME=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
    -sWASM_ASYNC_COMPILATION=0 -fexceptions)
  if(QUIVER_WASM_VARIANT STREQUAL "simd-mt")
    target_link_options(${target} PRIVATE -sPROXY_TO_PTHREAD=1 -sPTHREAD_POOL_SIZE=4)
  endif()
endfunction()
