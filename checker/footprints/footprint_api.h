/* The footprint recorder's C interface, for the injected library that loads it with dlopen where the Compute
 * Sanitizer API is there (the library links libsanitizer-public.so; the checker does not). Plain C types only.
 * One recorder per process; every function may be called from any thread. */
#ifndef HAZARDLAB_FOOTPRINT_API_H
#define HAZARDLAB_FOOTPRINT_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One range of a kernel's footprint: the hull of its reads, or of its writes, in one allocation. */
typedef struct {
  uint64_t begin, end; /* device addresses, end exclusive */
  int write;           /* 1: written (an atomic counts as a write), 0: read */
} hl_footprint_range;

/* Subscribes to the Sanitizer API and patches every module loaded from now on with the device patch at
 * `patch_path`. 0 on success; otherwise why it could not, in `why` (at most `why_size` bytes). */
typedef int (*hl_footprints_start_fn)(const char* patch_path, char* why, size_t why_size);
/* The ticket of the launch the calling thread is inside (given at the launch's start, taken once); 0 when the launch
 * is not recorded (not patched, or no room for its record). */
typedef uint64_t (*hl_footprints_take_ticket_fn)(void);
/* Reads back the footprints of launches that have run (the caller knows they have: the host synchronized with
 * them) and calls `each` once per ticket: `complete` is 0 when the record could not say every byte (an access no
 * allocation holds, more allocations than the record has room for, or the ticket unknown). A ticket is read once. */
typedef void (*hl_footprints_each_fn)(void* user, uint64_t ticket, const hl_footprint_range* ranges, size_t count,
                                      int complete);
typedef void (*hl_footprints_collect_fn)(const uint64_t* tickets, size_t count, hl_footprints_each_fn each,
                                         void* user);

#define HL_FOOTPRINTS_START "hl_footprints_start"
#define HL_FOOTPRINTS_TAKE_TICKET "hl_footprints_take_ticket"
#define HL_FOOTPRINTS_COLLECT "hl_footprints_collect"

#ifdef __cplusplus
}
#endif

#endif /* HAZARDLAB_FOOTPRINT_API_H */
