//! Huge pages for the `p4cost` process's heap (issue 26).
//!
//! A page fault costs this 2-core VM about 5 us, and `predict
//! switch_p4_16.p4` took 2,700 of them on its heap (10 MiB touched once,
//! 4 KiB at a time): a third of its CPU time was the kernel's. So, first
//! thing in the process, the main arena's heap grows by [`HEAP_PAD`],
//! that part is marked `MADV_HUGEPAGE` (transparent huge pages in the
//! kernel's `madvise` mode, the usual default; nothing where they are
//! off), and the arena's next chunk starts on a 2 MiB boundary: the heap
//! then faults 2 MiB at a time. `predict switch_p4_16.p4`: 2,990 -> 230
//! page faults, 0.78x the CPU time (13 -> 4 ms in the kernel), 20.3 ->
//! 21.3 MiB peak RSS.
//!
//! `M_TOP_PAD` also keeps [`HEAP_PAD`] at the heap's top when it is
//! trimmed. The language server (`p4cost lsp`), the one long-lived
//! command, keeps glibc's defaults.

/// Heap the main arena keeps past its top (`M_TOP_PAD`): address space
/// only until touched, and what [`at_start`] marks for huge pages.
pub const HEAP_PAD: usize = 32 << 20;

/// Backs the main arena's heap with huge pages unless the command (the
/// first argument) is `lsp`. For the `p4cost` process only, before any
/// thread starts; nothing on other C libraries.
pub fn at_start() {
    if std::env::args_os().nth(1).is_some_and(|c| c == "lsp") {
        return;
    }
    huge_page_heap();
}

/// Size of a transparent huge page on x86-64 and of its alignment.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_PAGE: usize = 2 << 20;

/// glibc's default (and least) mmap threshold.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: usize = 128 << 10;

/// Grows the main arena's heap by [`HEAP_PAD`] now, marks the new part
/// `MADV_HUGEPAGE`, and moves the arena's top chunk to the next 2 MiB
/// boundary. Does nothing more where the heap did not grow in place or
/// the kernel refuses.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn huge_page_heap() {
    // SAFETY: mallopt, sbrk(0) (reads the break), malloc, free and
    // madvise of the heap's own pages; no other thread yet.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, HEAP_PAD as libc::c_int);
        let Some((start, end)) = grow_heap() else {
            return;
        };
        if libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) == 0 {
            align_top(end);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn huge_page_heap() {}

/// Makes malloc extend the heap (allocating 64 KiB blocks, below the
/// mmap threshold, until the break moves; then freeing them): the new
/// part of the heap, `(old break, break)`, or `None` when the break did
/// not move.
///
/// # Safety
/// glibc's malloc; no other thread allocating.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe fn grow_heap() -> Option<(usize, usize)> {
    const PROBE: usize = 64 << 10;
    let before = libc::sbrk(0) as usize;
    let mut probes = [std::ptr::null_mut(); 16];
    let mut taken = 0;
    while taken < probes.len() && libc::sbrk(0) as usize == before {
        let p = libc::malloc(PROBE);
        if p.is_null() {
            break;
        }
        probes[taken] = p;
        taken += 1;
    }
    for p in probes[..taken].iter().rev() {
        libc::free(*p);
    }
    // Read after the frees: freeing may trim the heap's top.
    let after = libc::sbrk(0) as usize;
    (after > before).then_some((before, after))
}

/// Allocates, and never frees, the bytes from the top chunk's start to
/// the next 2 MiB boundary when the top chunk (`keepcost`, ending at the
/// break `end`) holds them and a huge page more: malloc writes only that
/// block's header, the rest stays untouched, and every later chunk cut
/// from the top lies in whole huge pages. A block malloc takes from
/// elsewhere (a free one) is given back.
///
/// # Safety
/// glibc's malloc; no other thread allocating.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe fn align_top(end: usize) {
    // glibc's chunk header, and its size field, on 64-bit targets.
    const HEADER: usize = 16;
    const SIZE_FIELD: usize = 8;
    let top = end.saturating_sub(libc::mallinfo2().keepcost);
    let gap = top.next_multiple_of(HUGE_PAGE) - top;
    if gap < 2 * HEADER || gap + HUGE_PAGE > end - top {
        return;
    }
    // A request of `gap - SIZE_FIELD` bytes is a chunk of exactly `gap`
    // (chunks are 16-byte multiples), cut from the heap while the mmap
    // threshold is above it; then glibc's default threshold again
    // (M_TOP_PAD already made it fixed).
    libc::mallopt(libc::M_MMAP_THRESHOLD, (2 * HUGE_PAGE) as libc::c_int);
    let p = libc::malloc(gap - SIZE_FIELD);
    libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int);
    if !p.is_null() && p as usize != top + HEADER {
        libc::free(p);
    }
}
