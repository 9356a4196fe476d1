// Swift's Glibc module leaves out <sys/epoll.h>; this exposes it (part of libc, nothing to link).
#include <sys/epoll.h>
