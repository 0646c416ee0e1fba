import { HUGE_PAGES_TUNABLE } from '../pool/index.js';

/**
 * glibc's mmap threshold, fixed. By default glibc serves an allocation of 128 KiB or more with
 * a mapping of its own and, when such a mapping is freed, raises the threshold to its size
 * (up to 32 MiB), so later allocations of that size come from the heap instead, where what is
 * freed among what is kept stays resident. Set, it no longer moves: every buffer of 1 MiB or
 * more (a job's big images and data, the copies of the files a process keeps) is a mapping of
 * its own and goes back to the kernel when freed.
 *
 * With huge pages that matters: test/render-process-floor.test.ts (4 MiB files, kept from the
 * fourth job on) saw a process's floor rise 6–12 MiB per kept file and the process recycled in
 * 3 runs of 6 (and in 1 of 10 with each kept file counted at whole huge pages), against 0 of 30
 * with the threshold fixed at 1 MiB, 10 of them beside a full CI run (0 of 8 at glibc's own
 * starting 128 KiB).
 */
const FIXED_MMAP_THRESHOLD = `glibc.malloc.mmap_threshold=${1024 * 1024}`;

/**
 * GLIBC_TUNABLES of a Typst render process: glibc's allocator on transparent huge pages (see
 * HUGE_PAGES_TUNABLE for the cost of a page fault here), with the mmap threshold fixed so that
 * the memory floor (MemoryFloor) still sees only what a process holds. Typst allocates through
 * glibc all through a compile. Measured on 2 cores (virtual), variants alternated:
 * - raw Typst, one process at a time, this setting against none (three pairs): the one-page
 *   sheet's p50 7.4–8.4 against 8.4–9.0 ms, lower in each pair; the 1000-product catalogue
 *   5.7 and 6.1 s against 7.9 s twice (the third pair 9.6 against 8.6 s), the same peak PSS
 *   (1078–1096 against 1073–1087 MiB). Huge pages alone had taken the faults of a sheet from
 *   136 to 1.4–2.5;
 * - through the service, the catalogue took 6.51 s (0.73 × raw Typst without the setting)
 *   against 8.89 s (1.01 ×), the 10 000-product one 66 s against 107–137 s;
 * - the sheet, the benchmark's `pdf` section, three pairs: 106.2, 103.2, 107.0 against 93.9,
 *   97.1, 100.8 async docs/s; render processes 12.5–12.6 against 13.1–13.8 ms CPU per sheet;
 * - the 20 000-ticket soak: 1.04 × (240 → 250 MiB), no render process recycled.
 */
export const RENDER_PROCESS_TUNABLES = `${HUGE_PAGES_TUNABLE}:${FIXED_MMAP_THRESHOLD}`;
