# emcmake sets the test emulator to `node --experimental-wasm-threads`, which Node 20 rejects;
# run wasm tests and benchmarks with plain Node instead.
find_program(QUIVER_NODE node REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${QUIVER_NODE}" CACHE STRING "Runs wasm executables" FORCE)

# Test and bench executables are CommonJS .js files; the package root is "type": "module".
file(WRITE ${CMAKE_BINARY_DIR}/package.json "{\"type\": \"commonjs\"}\n")

# Link options for wasm executables that run under Node (GoogleTest suites, benchmarks).
# quiver_wasm_test_link_options(target [pthread_pool_size]): in simd-mt the threads a program
# may run at once (the proxied main() included) are pre-spawned; default 10 (the pool tests
# run the process pool, an 8-thread pool and the caller at once).
function(quiver_wasm_test_link_options target)
  target_link_options(${target} PRIVATE
    -sENVIRONMENT=node -sEXIT_RUNTIME=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
    -sWASM_ASYNC_COMPILATION=0 -fexceptions
    --pre-js ${PROJECT_SOURCE_DIR}/cmake/wasm-node-env.js)
  if(QUIVER_WASM_VARIANT STREQUAL "simd-mt")
    set(pool_size 10)
    if(ARGC GREATER 1)
      set(pool_size ${ARGV1})
    endif()
    target_link_options(${target} PRIVATE -sPROXY_TO_PTHREAD=1 -sPTHREAD_POOL_SIZE=${pool_size})
  endif()
endfunction()
