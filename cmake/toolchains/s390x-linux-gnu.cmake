# Cross build for IBM Z (Debian s390x): 64-bit, big-endian,
# run under qemu-user: see linux-gnu-cross.cmake and tests/cross/run.sh.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CAVEGEN_CROSS_TRIPLE s390x-linux-gnu)
set(CAVEGEN_CROSS_MULTIARCH s390x-linux-gnu)
set(CAVEGEN_CROSS_QEMU qemu-s390x)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
