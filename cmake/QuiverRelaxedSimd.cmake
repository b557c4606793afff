# The relaxed-simd wasm variant (docs/isa-and-builds.md). Emscripten 3.1.6's clang 14 emits the
# pre-standard relaxed-SIMD opcodes that engines refuse, so the two wasm kernel files are
# compiled by Debian's clang-19 (standard opcodes) into objects that emcc links with the rest;
# everything else is the simd variant. Those objects need two things from the link (the route
# scripts/probe-relaxed-simd.sh verified): emcc must read the module's metadata itself
# (EMCC_READ_METADATA=python) and skip wasm-emscripten-finalize (-sWASM_BIGINT: no i64
# legalisation), since Debian's binaryen 108 cannot parse the standard opcodes; and the post-
# link wasm-opt must be binaryen 132 (QUIVER_RELAXED_TOOLS_BIN, first on PATH, from
# scripts/ensure-relaxed-toolchain.sh).

find_program(QUIVER_CLANG19 clang++-19 REQUIRED)
set(QUIVER_RELAXED_TOOLS_BIN "" CACHE PATH "Folder with binaryen 132's wasm-opt (scripts/ensure-relaxed-toolchain.sh)")
if(NOT EXISTS "${QUIVER_RELAXED_TOOLS_BIN}/wasm-opt")
  message(FATAL_ERROR "relaxed-simd: no wasm-opt in QUIVER_RELAXED_TOOLS_BIN='${QUIVER_RELAXED_TOOLS_BIN}' "
                      "(scripts/build.sh wasm-relaxed-simd installs it)")
endif()
# Every link (the module, tests, benchmarks) goes through the launcher, so that a plain
# `ninja -C` in the build tree links the same way as scripts/build.sh.
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env EMCC_READ_METADATA=python
    "PATH=${QUIVER_RELAXED_TOOLS_BIN}:$ENV{PATH}")
add_link_options(-sWASM_BIGINT)

# What emcc 3.1.6 passes its clang for a compile (`em++ -v`), for objects that link with its own.
execute_process(COMMAND em-config CACHE OUTPUT_VARIABLE QUIVER_EM_CACHE OUTPUT_STRIP_TRAILING_WHITESPACE
                COMMAND_ERROR_IS_FATAL ANY)
set(QUIVER_EMCC_CLANG_FLAGS --target=wasm32-unknown-emscripten --sysroot=${QUIVER_EM_CACHE}/sysroot
    -DEMSCRIPTEN -D__EMSCRIPTEN_major__=3 -D__EMSCRIPTEN_minor__=1 -D__EMSCRIPTEN_tiny__=6
    -D_LIBCPP_ABI_VERSION=2 -Dunix -D__unix -D__unix__ -fvisibility=default -fno-threadsafe-statics
    -Xclang -iwithsysroot/include/compat
    -mllvm -combiner-global-alias-analysis=false -mllvm -enable-emscripten-cxx-exceptions -mllvm -disable-lsr)

# quiver_relaxed_isa_source(file define): as quiver_isa_source (src/CMakeLists.txt), with
# clang-19 and QUIVER_WASM_RELAXED_SIMD, the switch in simd/vec_wasm128.hpp.
function(quiver_relaxed_isa_source file define)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(config_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS_${config}}")
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/${file})
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/relaxed/${file}.o)
  get_filename_component(obj_dir ${obj} DIRECTORY)
  file(MAKE_DIRECTORY ${obj_dir})
  add_custom_command(OUTPUT ${obj}
    COMMAND ${QUIVER_CLANG19} ${QUIVER_EMCC_CLANG_FLAGS} -std=c++17 ${config_flags} ${QUIVER_ALL_FLAGS}
            -mrelaxed-simd -I${CMAKE_CURRENT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/include
            -D${define} -DQUIVER_WASM_VARIANT="${QUIVER_WASM_VARIANT}" -DQUIVER_WASM_RELAXED_SIMD=1
            -MD -MF ${obj}.d -c ${src} -o ${obj}
    DEPENDS ${src} DEPFILE ${obj}.d
    COMMENT "clang-19 (relaxed SIMD) ${file}" VERBATIM)
  target_sources(quiver_core PRIVATE ${obj})
  target_compile_definitions(quiver_core PUBLIC ${define})
endfunction()

# Node 20 ships relaxed SIMD behind a flag: the test programs run with it.
set(CMAKE_CROSSCOMPILING_EMULATOR "${QUIVER_NODE};--experimental-wasm-relaxed-simd" CACHE STRING "Runs wasm executables" FORCE)
