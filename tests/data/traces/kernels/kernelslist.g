MemcpyHtoD,0x00007f4a20000000,4096
kernel-1.traceg
kernel-2.traceg
