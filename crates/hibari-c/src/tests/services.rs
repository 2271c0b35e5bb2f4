//! Service servers and clients: blocking and asynchronous calls.

use super::*;
use hibari_testkit::{cancel_and_join, with_timeout};

const ADD: &str = "example_interfaces/srv/AddTwoInts";

fn request(a: i64, b: i64) -> Vec<u8> {
    let mut r = vec![0, 1, 0, 0];
    r.extend_from_slice(&a.to_le_bytes());
    r.extend_from_slice(&b.to_le_bytes());
    r
}

fn sum_of(response: &[u8]) -> i64 {
    i64::from_le_bytes(response[4..12].try_into().unwrap())
}

/// Answers AddTwoInts; with `user` non-NULL, does not answer at all.
unsafe extern "C" fn add(
    req: *const u8,
    len: usize,
    response: *mut hibari_response_t,
    user: *mut c_void,
) {
    if !user.is_null() {
        return;
    }
    // SAFETY: the request's `len` bytes are valid during the call.
    let req = unsafe { std::slice::from_raw_parts(req, len) };
    let a = i64::from_le_bytes(req[4..12].try_into().unwrap());
    let b = i64::from_le_bytes(req[12..20].try_into().unwrap());
    let mut out = vec![0, 1, 0, 0];
    out.extend_from_slice(&(a + b).to_le_bytes());
    // SAFETY: `response` is this callback's; `out` is readable.
    unsafe {
        ok(hibari_response_set(response, out.as_ptr(), out.len()));
        assert_eq!(
            hibari_response_set(response, out.as_ptr(), out.len()),
            hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT
        );
    }
}

/// A server (answering, or silent) spun by a thread; stop it with the closure.
fn serve(ctx: hibari_context_t, silent: bool) -> impl FnOnce() {
    let n = node(ctx, "adder");
    let mut s = hibari_service_t::default();
    let user = if silent {
        std::ptr::dangling_mut::<c_void>()
    } else {
        null_mut()
    };
    // SAFETY: valid strings, callback and out-pointer.
    ok(unsafe {
        hibari_service_create(
            n,
            c("add").as_ptr(),
            c(ADD).as_ptr(),
            null(),
            Some(add),
            user,
            &mut s,
        )
    });
    let e = executor_with(n);
    let spinner = std::thread::spawn(move || ok(hibari_executor_spin(e)));
    move || {
        cancel_and_join(spinner, WAIT, "the server's spin", || {
            ok(hibari_executor_cancel(e))
        })
        .unwrap();
        ok(hibari_executor_destroy(e));
    }
}

fn client(ctx: hibari_context_t) -> hibari_client_t {
    let n = node(ctx, "caller");
    let mut cl = hibari_client_t::default();
    // SAFETY: valid strings and out-pointer.
    ok(unsafe { hibari_client_create(n, c("add").as_ptr(), c(ADD).as_ptr(), null(), &mut cl) });
    cl
}

#[test]
fn a_blocking_call_gets_the_sum_and_one_without_a_server_is_not_found() {
    with_timeout(WAIT, "blocking call", || {
        let ctx = isolated(&[]);
        let cl = client(ctx);
        let req = request(2, 3);
        let mut response = hibari_bytes_t {
            data: null_mut(),
            len: 0,
            cap: 0,
        };
        // SAFETY: `req` is readable; a valid out-pointer.
        let ret =
            unsafe { hibari_client_call(cl, req.as_ptr(), req.len(), WAIT_NS, &mut response) };
        assert_eq!(
            ret,
            hibari_ret_t::HIBARI_ERROR_NOT_FOUND,
            "{}",
            last_error()
        );
        let stop = serve(ctx, false);
        let mut available = false;
        // SAFETY: valid out-pointers; the response is finished once.
        unsafe {
            ok(hibari_client_wait_for_service(cl, WAIT_NS, &mut available));
            assert!(available);
            ok(hibari_client_call(
                cl,
                req.as_ptr(),
                req.len(),
                WAIT_NS,
                &mut response,
            ));
            assert_eq!(
                sum_of(std::slice::from_raw_parts(response.data, response.len)),
                5
            );
            ok(hibari_bytes_fini(&mut response));
            assert!(response.data.is_null());
        }
        stop();
        ok(hibari_context_destroy(ctx));
    });
}

/// What an asynchronous call's callback saw: (status, sum, last error).
type Outcome = Mutex<Vec<(hibari_ret_t, Option<i64>, String)>>;

unsafe extern "C" fn on_response(
    status: hibari_ret_t,
    cdr: *const u8,
    len: usize,
    user: *mut c_void,
) {
    // SAFETY: `user` is the test's Outcome, alive through the test; the
    // bytes are valid during the call.
    let (outcome, bytes) = unsafe {
        (
            &*user.cast::<Outcome>(),
            (!cdr.is_null()).then(|| std::slice::from_raw_parts(cdr, len)),
        )
    };
    outcome
        .lock()
        .unwrap()
        .push((status, bytes.map(sum_of), last_error()));
}

fn wait_for(outcome: &Outcome, n: usize) {
    let deadline = std::time::Instant::now() + WAIT;
    while outcome.lock().unwrap().len() < n {
        assert!(std::time::Instant::now() < deadline, "no callback");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn an_async_call_calls_back_once_with_the_response() {
    with_timeout(WAIT, "async call", || {
        let ctx = isolated(&[]);
        let stop = serve(ctx, false);
        let cl = client(ctx);
        let outcome = Arc::new(Outcome::default());
        let user = Arc::as_ptr(&outcome).cast_mut().cast();
        let (req, mut sequence, mut available) = (request(40, 2), 0i64, false);
        // SAFETY: `req` is readable, `outcome` outlives the call; valid out-pointers.
        unsafe {
            ok(hibari_client_wait_for_service(cl, WAIT_NS, &mut available));
            ok(hibari_client_send_request(
                cl,
                req.as_ptr(),
                req.len(),
                Some(on_response),
                user,
                &mut sequence,
            ));
        }
        assert_eq!(sequence, 1);
        wait_for(&outcome, 1);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            *outcome.lock().unwrap(),
            [(hibari_ret_t::HIBARI_OK, Some(42), String::new())]
        );
        stop();
        ok(hibari_context_destroy(ctx));
    });
}

#[test]
fn pending_calls_end_canceled_when_their_client_is_destroyed_and_not_found_without_a_server() {
    with_timeout(WAIT, "canceled calls", || {
        let ctx = isolated(&[]);
        let cl = client(ctx);
        let outcome = Arc::new(Outcome::default());
        let user = Arc::as_ptr(&outcome).cast_mut().cast();
        let req = request(1, 1);
        // SAFETY: `req` is readable, `outcome` outlives the calls.
        ok(unsafe {
            hibari_client_send_request(
                cl,
                req.as_ptr(),
                req.len(),
                Some(on_response),
                user,
                null_mut(),
            )
        });
        assert_eq!(
            outcome.lock().unwrap()[0].0,
            hibari_ret_t::HIBARI_ERROR_NOT_FOUND,
            "no server: at once"
        );
        let stop = serve(ctx, true);
        let mut available = false;
        // SAFETY: as above.
        unsafe {
            ok(hibari_client_wait_for_service(cl, WAIT_NS, &mut available));
            ok(hibari_client_send_request(
                cl,
                req.as_ptr(),
                req.len(),
                Some(on_response),
                user,
                null_mut(),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            outcome.lock().unwrap().len(),
            1,
            "the silent server does not answer"
        );
        ok(hibari_client_destroy(cl));
        let last = outcome.lock().unwrap()[1].clone();
        assert_eq!(last.0, hibari_ret_t::HIBARI_ERROR_CANCELED);
        assert!(last.2.contains("destroyed"), "{}", last.2);
        stop();
        ok(hibari_context_destroy(ctx));
    });
}
