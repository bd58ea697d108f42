//! Validation of a request against a configuration, done once per request:
//! the op at its width ([`BankConfig::check_access`]) and the shared window.
//! A leaf.

use crate::{BankConfig, Error, WarpRequest};

/// Checks `request` under `config`: the capability has its op at its width,
/// and every active lane's access ends inside the shared window.
pub(super) fn validate(config: BankConfig, request: &WarpRequest) -> Result<(), Error> {
    config.check_access(request.op(), request.width())?;
    let window = config.capability().shared_window_size();
    let width = request.width().bytes();
    // Inactive lanes hold address 0. The OR of all addresses is at least the
    // highest one and vectorises where a maximum does not, so it settles
    // the common case; the exact search runs only when it is inconclusive.
    // Four independent ORs: LLVM keeps them in one vector register.
    let mut ors = [0u32; 4];
    for chunk in request.raw_addresses().chunks_exact(4) {
        for (or, &address) in ors.iter_mut().zip(chunk) {
            *or |= address;
        }
    }
    let any = ors[0] | ors[1] | ors[2] | ors[3];
    if u64::from(any) + u64::from(width) <= u64::from(window) {
        return Ok(());
    }
    check_window(config, request, window, width)
}

/// The exact window check, apart so the common case above stays a few
/// vector instructions.
#[cold]
#[inline(never)]
fn check_window(
    config: BankConfig,
    request: &WarpRequest,
    window: u32,
    width: u32,
) -> Result<(), Error> {
    let highest = request.raw_addresses().iter().copied().max().unwrap_or(0);
    if u64::from(highest) + u64::from(width) <= u64::from(window) {
        return Ok(());
    }
    let (lane, address) = request
        .active_addresses()
        .find(|&(_, address)| u64::from(address) + u64::from(width) > u64::from(window))
        .expect("the highest address belongs to an active lane");
    Err(Error::OutsideWindow {
        lane: lane.index() as u8,
        address,
        end: u64::from(address) + u64::from(width),
        window,
        capability: config.capability(),
    })
}
