# Instruments everything the fuzz build compiles. Included from the top-level CMakeLists.txt before
# lib/ and harness/, so the readers under test carry the sanitizers and libFuzzer's coverage feedback,
# not only the fuzz targets.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "CAPABOOST_FUZZ needs clang for libFuzzer (make fuzz configures with clang++-14)")
endif()
# fuzzer-no-link: coverage instrumentation everywhere; only the fuzz executables link libFuzzer's main.
# -fno-sanitize-recover=all: a UBSan report aborts the input, so libFuzzer keeps it as a crash.
# -O1: the usual fuzzing compromise, fast enough to run and still readable in a stack trace.
# _GLIBCXX_ASSERTIONS: bounds-checked std::vector/std::string operator[], which ASan cannot see inside a
# container's capacity; it changes no ABI, so the GCC-built libtorch links as before.
add_compile_options(-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -O1 -g -D_GLIBCXX_ASSERTIONS)
add_link_options(-fsanitize=address,undefined)
