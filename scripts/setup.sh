#!/usr/bin/env bash
# `make setup`: the system packages and the virtual environment at once. apt (scripts/install_system_packages.sh,
# options passed on) runs beside pip; pip builds llama-cpp-python from source while it downloads and installs
# every other dependency, then installs the project editable. The build compiles only what the bindings load (no
# multimodal library, no llama.cpp common utilities) and its wheel is kept in a cache keyed on the version, the CMake
# options and the CPU, so that a second set-up on the machine does not build again.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
venv=${VENV:-.venv}
py=$venv/bin/python
cmake_include=$(pwd)/scripts/llama_cpp_library_only.cmake
cmake_options="-DLLAVA_BUILD=OFF ${CMAKE_ARGS:-}"
downloads=$(mktemp -d)
trap 'wait; rm -rf "$downloads"' EXIT

bash scripts/install_system_packages.sh "$@" &
system=$!
"$python" -m venv "$venv"
# pip, and the project's build backend: tests/test_install.py builds the project here without a network, and a new
# venv's setuptools can be older than the one pyproject.toml asks for.
readarray -t build_requires < <("$py" -c '
import tomllib
with open("pyproject.toml", "rb") as file:
    print(*tomllib.load(file)["build-system"]["requires"], sep="\n")')
"$py" -m pip install --quiet --upgrade pip "${build_requires[@]}"
llama=$("$py" -c '
import tomllib
with open("pyproject.toml", "rb") as file:
    print(next(r for r in tomllib.load(file)["project"]["dependencies"] if r.startswith("llama-cpp-python")))')
# The wheel is built for this CPU (llama.cpp's default -march=native): its flags are part of the key; the include
# file is, by content, so that every clone on the machine shares the wheel.
key=$({
    printf '%s\n' "$llama" "$cmake_options" "$(uname -m)"
    grep -m1 '^flags' /proc/cpuinfo 2>/dev/null
    cat "$cmake_include"
} | "$py" -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest()[:16])')
wheels=${XDG_CACHE_HOME:-$HOME/.cache}/alerce-t2s/llama-cpp-python/$key
if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "building $llama (the llama.cpp library only; a few minutes, once per machine)" >&2
    "$py" -m pip download --quiet --no-deps --dest "$downloads" "$llama"
    CMAKE_ARGS="-DCMAKE_PROJECT_llama_cpp_INCLUDE='$cmake_include' $cmake_options" \
        "$py" -m pip wheel --quiet --no-deps --wheel-dir "$downloads/built" "$downloads"/llama_cpp_python-*.tar.gz &
    build=$!
    "$py" -m pip download --quiet --dest "$downloads" '.[dev,docs]'
    # What pip download resolved, installed during the build; the last install checks the whole set again.
    "$py" -m pip install --quiet --no-deps "$downloads"/*.whl
    wait "$build"
    mkdir -p "$(dirname "$wheels")"
    rm -rf "$wheels"
    mv "$downloads/built" "$wheels"
fi
"$py" -m pip install --quiet --find-links "$wheels" --find-links "$downloads" -e '.[dev,docs]'
wait "$system"
