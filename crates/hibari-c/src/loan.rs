//! Loans: a message's bytes written where the transport carries them — to
//! subscribers in other processes a chunk of shared memory, which they read
//! in place — and sent without a copy.
//!
//! A loan lives in a slab (its `id`; `slab.rs`) until sent
//! or discarded: the publisher and the bytes it lent, kept together
//! ([`LoanEntry`]). The bytes do not move while lent, so their address can
//! be handed to C.

use std::sync::Arc;

use hibari_rs::PublisherLoan;

use crate::args::{bytes_arg, check_out, put};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::hibari_publisher_t;
use crate::publisher::{check_cdr, publisher, BytesPublisher};
use crate::slab::Slab;

/// A publisher and the bytes it lent, which borrow it. The borrow is
/// kept beside the `Arc` that owns the publisher rather than in a
/// self-referencing cell, which would allocate a box per loan: the
/// publisher lives in the `Arc`'s allocation, which does not move, so a
/// borrow of it stays valid for as long as `owner` lives. `lent`'s
/// `'static` is this file's secret: it never leaves a `LoanEntry` (callers
/// get the bytes for as long as they borrow the entry, and `send` consumes
/// it), and fields drop in declaration order, `lent` before `owner`.
struct LoanEntry {
    lent: PublisherLoan<'static>,
    owner: Arc<BytesPublisher>,
}

impl LoanEntry {
    /// Lends `len` bytes from `owner`.
    fn new(owner: Arc<BytesPublisher>, len: usize) -> Result<LoanEntry> {
        let lent = owner.loan(len).map_err(Error::other)?;
        // SAFETY: `lent` borrows the publisher inside `owner`'s allocation,
        // which stays where it is while `owner` (moved into the entry with
        // it) lives; the entry drops `lent` first and never lets it out
        // with the longer lifetime (see the struct's docs).
        let lent =
            unsafe { std::mem::transmute::<PublisherLoan<'_>, PublisherLoan<'static>>(lent) };
        Ok(LoanEntry { lent, owner })
    }

    /// The lent bytes.
    fn bytes(&mut self) -> &mut [u8] {
        &mut self.lent
    }

    /// Sends the bytes, which must be CDR; the publisher is let go after.
    /// Refused, the entry drops as any entry does: its memory goes back,
    /// then the publisher (field order).
    fn send(self) -> Result {
        check_cdr(&self.lent, "the loan's message")?;
        let LoanEntry {
            lent,
            owner: _owner,
        } = self; // `_owner` lives to the end
        lent.send().map_err(|e| Error::other(e.into_reason()))
    }
}

/// Every loan lent and not yet consumed.
static LOANS: Slab<LoanEntry> = Slab::new();

/// Bytes lent by a publisher: write the whole message's CDR (header
/// included) at `data`, exactly `len` bytes, then `hibari_loan_send` it —
/// or `hibari_loan_discard` it. Both consume the loan: they zero the
/// struct, and `data` must not be used any more. A loan outlives its
/// publisher's handle (it keeps the publisher alive until sent).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct hibari_loan_t {
    /// The loan's id (never reused); 0 once consumed.
    pub id: u64,
    /// The lent bytes, writable (their contents are undefined: write all).
    pub data: *mut u8,
    /// How many.
    pub len: usize,
}

/// Lends `len` bytes from `publisher` and runs `fill` on them; the loan.
fn lend(p: Arc<BytesPublisher>, len: usize, fill: impl FnOnce(&mut [u8])) -> Result<hibari_loan_t> {
    let mut entry = LoanEntry::new(p, len)?;
    let bytes = entry.bytes();
    fill(bytes);
    let data = bytes.as_mut_ptr();
    let id = LOANS.insert(entry)?;
    Ok(hibari_loan_t { id, data, len })
}

/// Lends `len` bytes to write one message in place (see `hibari_loan_t`).
///
/// # Safety
///
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_loan(
    publisher: hibari_publisher_t,
    len: usize,
    out: *mut hibari_loan_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        let loan = lend(self::publisher(publisher)?, len, |_| {})?;
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", loan) }
    })
}

/// Lends memory for a message whose one big array is filled in place (an
/// image's pixels): `skeleton` is the message's final CDR bytes without
/// the array's elements — everything before them (the sequence's length
/// included, set to the final count) up to `hole_offset`, then everything
/// after them, laid out as it will be after the array (CDR alignment
/// counts from the final offsets). The loan is `skeleton_len + hole_len`
/// bytes: the skeleton copied around a hole of `hole_len` bytes at
/// `hole_offset`, whose address goes to `hole_out`. Fill the hole, then
/// `hibari_loan_send`. (The C++ layer's `loan_with_array` computes the
/// skeleton from a message.)
///
/// # Safety
///
/// `skeleton` points to `skeleton_len` readable bytes; `out` and
/// `hole_out` are writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_loan_with_hole(
    publisher: hibari_publisher_t,
    skeleton: *const u8,
    skeleton_len: usize,
    hole_offset: usize,
    hole_len: usize,
    out: *mut hibari_loan_t,
    hole_out: *mut *mut u8,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        check_out(hole_out, "hole_out")?;
        // SAFETY: the caller's contract.
        let skeleton = unsafe { bytes_arg(skeleton, skeleton_len, "skeleton") }?;
        check_cdr(skeleton, "the skeleton")?;
        if hole_offset < 4 || hole_offset > skeleton.len() {
            return Err(Error::invalid(format!(
                "hole_offset {hole_offset} is outside the skeleton's body (4..={})",
                skeleton.len()
            )));
        }
        let len = skeleton
            .len()
            .checked_add(hole_len)
            .ok_or_else(|| Error::invalid("skeleton_len + hole_len overflows"))?;
        let (before, after) = skeleton.split_at(hole_offset);
        let loan = lend(self::publisher(publisher)?, len, |bytes| {
            bytes[..hole_offset].copy_from_slice(before);
            bytes[hole_offset + hole_len..].copy_from_slice(after);
        })?;
        // The hole lies inside the lent bytes: hole_offset <= len - hole_len.
        let hole = loan.data.wrapping_add(hole_offset);
        // SAFETY: the caller's contract (both checked above).
        unsafe {
            put(out, "out", loan)?;
            put(hole_out, "hole_out", hole)
        }
    })
}

/// Takes the loan out of the slab and zeroes the struct.
///
/// # Safety
///
/// `loan` is NULL or points to a readable and writable `hibari_loan_t`.
unsafe fn take(loan: *mut hibari_loan_t) -> Result<LoanEntry> {
    if loan.is_null() || !loan.is_aligned() {
        return Err(Error::invalid(
            "`loan` is NULL or misaligned: pass the loan to consume",
        ));
    }
    // SAFETY: not NULL, aligned, readable (the caller's contract); the id is
    // an integer, valid whatever its bits.
    let id = unsafe { std::ptr::addr_of!((*loan).id).read() };
    let taken = LOANS.take(id, "loan")?;
    // SAFETY: as above, and writable.
    unsafe {
        loan.write(hibari_loan_t {
            id: 0,
            data: std::ptr::null_mut(),
            len: 0,
        })
    };
    Ok(taken)
}

/// Sends the loan's bytes to every matched subscription and consumes the
/// loan (even when sending fails: its memory then goes back). The bytes
/// must start with the CDR header.
///
/// # Safety
///
/// `loan` points to a loan from `hibari_publisher_loan*` (readable and
/// writable).
#[no_mangle]
pub unsafe extern "C" fn hibari_loan_send(loan: *mut hibari_loan_t) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        unsafe { take(loan) }?.send()
    })
}

/// Gives the loan's memory back unsent and consumes the loan.
///
/// # Safety
///
/// As `hibari_loan_send`.
#[no_mangle]
pub unsafe extern "C" fn hibari_loan_discard(loan: *mut hibari_loan_t) -> hibari_ret_t {
    // SAFETY: the caller's contract; dropping the loan gives the memory back.
    ffi(|| unsafe { take(loan) }.map(drop))
}
