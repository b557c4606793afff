# ctest install_consumer: installs this build into a fresh prefix, then configures and builds
# examples/cpp on its own against it (find_package(quiver) -> quiver::core) and runs the example.
# Proves the install/export rules are complete and the public headers need nothing from src/.
# Inputs (-D): BUILD_DIR, SOURCE_DIR, WORK_DIR, CXX_COMPILER, GENERATOR.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(consumer ${WORK_DIR}/consumer)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
if(EXISTS ${prefix}/include/simd OR EXISTS ${prefix}/include/base OR EXISTS ${prefix}/include/container
   OR EXISTS ${prefix}/include/index)
  message(FATAL_ERROR "internal headers were installed")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/cpp -B ${consumer} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${consumer})
run(${consumer}/example_flat_search)
if(NOT last_output MATCHES "id 100 distance -?0\\.0000")  # as the example_flat_search test
  message(FATAL_ERROR "unexpected example output:\n${last_output}")
endif()
message(STATUS "installed Quiver found and used by examples/cpp")
