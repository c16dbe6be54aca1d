// The shipped default DBS screen (resources/screens/dbs512.pgm), embedded into the binary with .incbin
// so the CLI, studio and tests need no resource path at run time.
#include <cstddef>
#include <cstdint>

#if defined(HALFTONE_DEFAULT_SCREEN_FILE) && defined(__ELF__)
#define HALFTONE_STR2(x) #x
#define HALFTONE_STR(x) HALFTONE_STR2(x)
__asm__(".section .rodata\n"
        ".balign 16\n"
        "halftone_default_screen_begin:\n"
        ".incbin \"" HALFTONE_STR(HALFTONE_DEFAULT_SCREEN_FILE) "\"\n"
        "halftone_default_screen_end:\n"
        ".previous\n");
extern "C" const uint8_t halftone_default_screen_begin[];
extern "C" const uint8_t halftone_default_screen_end[];
#endif

namespace halftone {

const uint8_t* defaultScreenBytes(size_t& size) {
#if defined(HALFTONE_DEFAULT_SCREEN_FILE) && defined(__ELF__)
    size = size_t(halftone_default_screen_end - halftone_default_screen_begin);
    return halftone_default_screen_begin;
#else
    size = 0;
    return nullptr;
#endif
}

}  // namespace halftone
