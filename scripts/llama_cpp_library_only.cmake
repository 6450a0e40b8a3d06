# Included right after llama-cpp-python's project() (CMAKE_PROJECT_llama_cpp_INCLUDE, set by scripts/setup.sh). The
# bindings load libllama and libggml only, yet the package forces llama.cpp's common library (and its HTTP client)
# on: about 40 % of the compile. A normal variable shadows that forced cache entry (policy CMP0126).
set(LLAMA_BUILD_COMMON OFF)
