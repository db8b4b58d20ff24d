# Shared part of the cross toolchain files beside it (aarch64-linux-gnu.cmake,
# i686-linux-gnu.cmake, s390x-linux-gnu.cmake), which set CMAKE_SYSTEM_PROCESSOR,
# CAVEGEN_CROSS_TRIPLE (the compiler's prefix), CAVEGEN_CROSS_MULTIARCH
# (Debian's library folder, usr/lib/<multiarch>) and CAVEGEN_CROSS_QEMU, then
# include this file.
#
# Debian's cross compilers (gcc-<triple>, libc6-dev-<arch>-cross) build a
# STATIC executable, so qemu-user runs it with no target loader or libraries
# installed. libpng and zlib come from CAVEGEN_SYSROOT: the target's own
# libpng-dev and zlib1g-dev packages unpacked with dpkg-deb -x (their headers,
# pnglibconf.h included, and their .a archives); tests/cross/run.sh makes it.
#
#   cmake -S . -B build-cross-s390x \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/s390x-linux-gnu.cmake \
#     -DCAVEGEN_SYSROOT=$PWD/build-cross-s390x/sysroot
#
# Only the determinism suite is built for the target (tests/CMakeLists.txt);
# ctest runs it under CMAKE_CROSSCOMPILING_EMULATOR.
set(CMAKE_SYSTEM_NAME Linux)

set(CMAKE_C_COMPILER ${CAVEGEN_CROSS_TRIPLE}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${CAVEGEN_CROSS_MULTIARCH})

find_program(CAVEGEN_CROSS_QEMU_PATH ${CAVEGEN_CROSS_QEMU})
if(CAVEGEN_CROSS_QEMU_PATH)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CAVEGEN_CROSS_QEMU_PATH})
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CAVEGEN_CROSS_QEMU})
endif()

# The sysroot is a cache variable of the main project; try_compile projects
# (which load this file again) get it through the platform variables.
set(CAVEGEN_SYSROOT "$ENV{CAVEGEN_SYSROOT}" CACHE PATH
    "The target's libpng-dev and zlib1g-dev unpacked (tests/cross/run.sh)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CAVEGEN_SYSROOT)

# Headers and libraries from the sysroot only (never the build machine's
# /usr/include or /usr/lib), programs (python3, the emulator) from the build
# machine. The cross libc is the compiler's own and needs no search.
if(CAVEGEN_SYSROOT)
  set(CMAKE_FIND_ROOT_PATH ${CAVEGEN_SYSROOT})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Static: executables link -static against the sysroot's archives and the
# cross libc.a. find_library would take the sysroot's libpng.so (the
# platform's suffixes put .so first), so libpng and zlib are named here: the
# target's archives and headers, pnglibconf.h included, never the build
# machine's. FindPNG adds libm for a static libpng.
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
if(CAVEGEN_SYSROOT)
  set(_cavegen_lib ${CAVEGEN_SYSROOT}/usr/lib/${CAVEGEN_CROSS_MULTIARCH})
  set(PNG_LIBRARY_RELEASE ${_cavegen_lib}/libpng16.a CACHE FILEPATH "The target's static libpng")
  set(PNG_PNG_INCLUDE_DIR ${CAVEGEN_SYSROOT}/usr/include/libpng16 CACHE PATH "The target's png.h")
  set(ZLIB_LIBRARY_RELEASE ${_cavegen_lib}/libz.a CACHE FILEPATH "The target's static zlib")
  set(ZLIB_INCLUDE_DIR ${CAVEGEN_SYSROOT}/usr/include CACHE PATH "The target's zlib.h")
  unset(_cavegen_lib)
endif()
