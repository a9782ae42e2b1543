#ifndef SK_VERSION_H
#define SK_VERSION_H
#define SK_VERSION "0.1.0"
#endif
