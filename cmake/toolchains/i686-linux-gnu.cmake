# Cross build for 32-bit x86 (Debian i386): 32-bit size_t and pointers, x87 floating point,
# run under qemu-user: see linux-gnu-cross.cmake and tests/cross/run.sh.
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CAVEGEN_CROSS_TRIPLE i686-linux-gnu)
set(CAVEGEN_CROSS_MULTIARCH i386-linux-gnu)
set(CAVEGEN_CROSS_QEMU qemu-i386)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
