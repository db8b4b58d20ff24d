# Cross build for 64-bit ARM (Debian arm64), little-endian,
# run under qemu-user: see linux-gnu-cross.cmake and tests/cross/run.sh.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CAVEGEN_CROSS_TRIPLE aarch64-linux-gnu)
set(CAVEGEN_CROSS_MULTIARCH aarch64-linux-gnu)
set(CAVEGEN_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
