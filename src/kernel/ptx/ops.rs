//! Exact integer semantics of PTX instructions, over values that may be
//! unknown.
//!
//! A register holds a [`Value`]: its bits, or unknown (a global load, or
//! anything computed from one). Every operation here is exact where its
//! operands are known and unknown where the result depends on an unknown
//! operand; where the result does not (`and` with 0, `mul` by 0, `or` with all
//! ones, `selp` of two equal values) it is known, because it is the same for
//! every value the unknown operand could hold.
//!
//! Values are kept zero-extended from their type's width: a `.s16` register
//! holding -1 holds `0xffff`. An operation reads its operands through its
//! instruction type ([`IntType`]), truncating wider bits, and writes its
//! result the same way.
//!
//! The semantics are those of the PTX ISA (version 9.0, section 9.7.1,
//! "Integer Arithmetic Instructions", and 9.7.8, "Logic and Shift
//! Instructions", 9.7.9, "Data Movement and Conversion Instructions": `cvt`);
//! each function cites its instruction.

/// A register value: its bits, zero-extended to 64 from its type's width, or
/// unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Value(Option<u64>);

impl Value {
    /// A value the interpreter does not know.
    pub const UNKNOWN: Value = Value(None);

    /// A known value.
    pub const fn known(bits: u64) -> Self {
        Value(Some(bits))
    }

    /// Its bits, where known.
    pub const fn bits(self) -> Option<u64> {
        self.0
    }

    /// Whether it is known.
    pub const fn is_known(self) -> bool {
        self.0.is_some()
    }

    fn map(self, f: impl FnOnce(u64) -> u64) -> Value {
        Value(self.0.map(f))
    }
}

impl From<u64> for Value {
    fn from(bits: u64) -> Self {
        Value::known(bits)
    }
}

/// An integer instruction type: `.u8`-`.u64`, `.s8`-`.s64`, `.b8`-`.b64` (the
/// bit types behave as the unsigned ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntType {
    bits: u32,
    signed: bool,
}

impl IntType {
    /// `.u8`/`.b8`.
    pub const U8: IntType = IntType::new(8, false);
    /// `.u16`/`.b16`.
    pub const U16: IntType = IntType::new(16, false);
    /// `.u32`/`.b32`.
    pub const U32: IntType = IntType::new(32, false);
    /// `.u64`/`.b64`.
    pub const U64: IntType = IntType::new(64, false);
    /// `.s8`.
    pub const S8: IntType = IntType::new(8, true);
    /// `.s16`.
    pub const S16: IntType = IntType::new(16, true);
    /// `.s32`.
    pub const S32: IntType = IntType::new(32, true);
    /// `.s64`.
    pub const S64: IntType = IntType::new(64, true);

    /// The type of `bits` (8, 16, 32 or 64) bits, signed or not.
    ///
    /// Any other width is taken as 64 bits; callers pass one of the four.
    pub const fn new(bits: u32, signed: bool) -> Self {
        let bits = match bits {
            8 | 16 | 32 => bits,
            _ => 64,
        };
        IntType { bits, signed }
    }

    /// Its width in bits.
    pub const fn bits(self) -> u32 {
        self.bits
    }

    /// Whether it is signed.
    pub const fn signed(self) -> bool {
        self.signed
    }

    /// The type twice as wide (`.wide` results); 64-bit types stay 64-bit.
    pub const fn wide(self) -> Self {
        IntType::new(self.bits * 2, self.signed)
    }

    /// The same width, unsigned.
    pub const fn unsigned(self) -> Self {
        IntType::new(self.bits, false)
    }

    const fn mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1 << self.bits) - 1
        }
    }

    /// `x` truncated to the type's width.
    pub const fn trunc(self, x: u64) -> u64 {
        x & self.mask()
    }

    /// `x` read as the type: sign-extended for a signed type, zero-extended
    /// otherwise.
    pub const fn extend(self, x: u64) -> i128 {
        let x = self.trunc(x);
        if self.signed {
            let shift = 64 - self.bits;
            (((x << shift) as i64) >> shift) as i128
        } else {
            x as i128
        }
    }

    const fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    const fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// `x` wrapped into the type (two's complement), zero-extended.
    pub const fn wrap(self, x: i128) -> u64 {
        self.trunc(x as u64)
    }

    /// `x` clamped to the type's range, zero-extended.
    pub const fn saturate(self, x: i128) -> u64 {
        let x = if x < self.min() {
            self.min()
        } else if x > self.max() {
            self.max()
        } else {
            x
        };
        self.wrap(x)
    }
}

/// `f(a, b)` of two known values, else unknown.
fn both(a: Value, b: Value, f: impl FnOnce(u64, u64) -> u64) -> Value {
    match (a.0, b.0) {
        (Some(a), Some(b)) => Value::known(f(a, b)),
        _ => Value::UNKNOWN,
    }
}

/// `add.type` (wraps around), or `add.sat.s32` (clamps) with `sat`.
pub fn add(t: IntType, a: Value, b: Value, sat: bool) -> Value {
    both(a, b, |a, b| {
        let sum = t.extend(a) + t.extend(b);
        if sat {
            t.saturate(sum)
        } else {
            t.wrap(sum)
        }
    })
}

/// `sub.type` (wraps around), or `sub.sat.s32` (clamps) with `sat`.
pub fn sub(t: IntType, a: Value, b: Value, sat: bool) -> Value {
    both(a, b, |a, b| {
        let diff = t.extend(a) - t.extend(b);
        if sat {
            t.saturate(diff)
        } else {
            t.wrap(diff)
        }
    })
}

/// Which part of a product `mul`/`mad` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Half {
    /// `.lo`: the low `n` bits of the `2n`-bit product.
    Lo,
    /// `.hi`: the high `n` bits.
    Hi,
    /// `.wide`: all `2n` bits (16- and 32-bit types only).
    Wide,
}

/// The product of `a` and `b` as `half` selects: `mul.lo/.hi/.wide.type`.
///
/// A known zero makes the product zero whatever the other operand.
pub fn mul(t: IntType, half: Half, a: Value, b: Value) -> Value {
    if a == Value::known(0) || b == Value::known(0) {
        return Value::known(0);
    }
    both(a, b, |a, b| product(t, half, a, b))
}

fn product(t: IntType, half: Half, a: u64, b: u64) -> u64 {
    // The full product of two 64-bit values fits 128 bits, read as the
    // type's signedness; i128 holds the signed ones, u128 the unsigned.
    let full: u128 = if t.signed {
        (t.extend(a) * t.extend(b)) as u128
    } else {
        (t.extend(a) as u128) * (t.extend(b) as u128)
    };
    match half {
        Half::Lo => t.trunc(full as u64),
        Half::Hi => t.trunc((full >> t.bits) as u64),
        Half::Wide => t.wide().trunc(full as u64),
    }
}

/// `mad.lo/.hi/.wide.type d, a, b, c`: the product of `a` and `b` as `half`
/// selects, plus `c` (of the result's type), wrapping around; `mad.hi.sat.s32`
/// with `sat` clamps the sum.
pub fn mad(t: IntType, half: Half, a: Value, b: Value, c: Value, sat: bool) -> Value {
    let result = if half == Half::Wide { t.wide() } else { t };
    let p = mul(t, half, a, b);
    if sat {
        // mad.hi.sat.s32: the sum of the high half and c, clamped (PTX ISA, mad).
        return both(p, c, |p, c| {
            result.saturate(result.extend(p) + result.extend(c))
        });
    }
    add(result, p, c, false)
}

/// `mul24.lo/.hi.type` (`.u32`/`.s32`): the product of the low 24 bits of `a`
/// and `b` (sign-extended from bit 23 for `.s32`), its low 32 bits (`Lo`) or
/// bits 16-47 (`Hi`).
pub fn mul24(t: IntType, half: Half, a: Value, b: Value) -> Value {
    both(a, b, |a, b| {
        let a24 = IntType::new(32, t.signed).extend(sign24(t, a) as u64);
        let b24 = IntType::new(32, t.signed).extend(sign24(t, b) as u64);
        let full = a24 * b24;
        match half {
            Half::Hi => IntType::U32.wrap(full >> 16),
            Half::Lo | Half::Wide => IntType::U32.wrap(full),
        }
    })
}

fn sign24(t: IntType, x: u64) -> u32 {
    let x = (x as u32) & 0xff_ffff;
    if t.signed && x & 0x80_0000 != 0 {
        x | 0xff00_0000
    } else {
        x
    }
}

/// `mad24.lo/.hi.type d, a, b, c`: [`mul24`] plus `c`, wrapping around.
pub fn mad24(t: IntType, half: Half, a: Value, b: Value, c: Value) -> Value {
    add(IntType::U32, mul24(t, half, a, b), c, false)
}

/// `div.type`: the quotient rounded towards zero.
///
/// Division by zero "yields an unspecified, machine-specific value" (PTX ISA,
/// `div`): unknown. The one signed overflow, `MIN / -1`, wraps to `MIN` (the
/// two's-complement result, as Rust's `wrapping_div`).
pub fn div(t: IntType, a: Value, b: Value) -> Value {
    match (a.0, b.0) {
        (Some(a), Some(b)) if t.trunc(b) != 0 => Value::known(t.wrap(t.extend(a) / t.extend(b))),
        _ => Value::UNKNOWN,
    }
}

/// `rem.type`: the remainder, of the sign of the dividend (C's `%`).
///
/// By zero: unknown, as for [`div`]. `MIN % -1` is 0.
pub fn rem(t: IntType, a: Value, b: Value) -> Value {
    match (a.0, b.0) {
        (Some(a), Some(b)) if t.trunc(b) != 0 => Value::known(t.wrap(t.extend(a) % t.extend(b))),
        _ => Value::UNKNOWN,
    }
}

/// `min.type`, signed or unsigned as the type says.
pub fn min(t: IntType, a: Value, b: Value) -> Value {
    both(a, b, |a, b| t.wrap(t.extend(a).min(t.extend(b))))
}

/// `max.type`, signed or unsigned as the type says.
pub fn max(t: IntType, a: Value, b: Value) -> Value {
    both(a, b, |a, b| t.wrap(t.extend(a).max(t.extend(b))))
}

/// `neg.type`: two's complement negation (`-MIN` is `MIN`).
pub fn neg(t: IntType, a: Value) -> Value {
    a.map(|a| t.wrap(-t.extend(a)))
}

/// `abs.type` (signed types): `abs(MIN)` is `MIN` (PTX ISA, `abs`: "the
/// maximum negative value is returned unchanged").
pub fn abs(t: IntType, a: Value) -> Value {
    a.map(|a| t.wrap(t.extend(a).abs()))
}

/// `not.type`: bitwise complement.
pub fn not(t: IntType, a: Value) -> Value {
    a.map(|a| t.trunc(!a))
}

/// `cnot.type`: 1 if `a` is zero, else 0.
pub fn cnot(t: IntType, a: Value) -> Value {
    a.map(|a| u64::from(t.trunc(a) == 0))
}

/// `and.type`. A known zero operand makes the result zero.
pub fn and(t: IntType, a: Value, b: Value) -> Value {
    if a.0.is_some_and(|a| t.trunc(a) == 0) || b.0.is_some_and(|b| t.trunc(b) == 0) {
        return Value::known(0);
    }
    both(a, b, |a, b| t.trunc(a & b))
}

/// `or.type`. A known all-ones operand makes the result all ones.
pub fn or(t: IntType, a: Value, b: Value) -> Value {
    let ones = t.trunc(u64::MAX);
    if a.0.is_some_and(|a| t.trunc(a) == ones) || b.0.is_some_and(|b| t.trunc(b) == ones) {
        return Value::known(ones);
    }
    both(a, b, |a, b| t.trunc(a | b))
}

/// `xor.type`.
pub fn xor(t: IntType, a: Value, b: Value) -> Value {
    both(a, b, |a, b| t.trunc(a ^ b))
}

/// `shl.type`: shift left; amounts above the width are clamped to the width
/// (PTX ISA, `shl`: "shift amounts greater than the register width N are
/// clamped to N"), so the result is zero. The amount is a `.u32`.
pub fn shl(t: IntType, a: Value, amount: Value) -> Value {
    both(a, amount, |a, n| {
        let n = (n as u32).min(t.bits);
        if n == t.bits {
            0
        } else {
            t.trunc(a << n)
        }
    })
}

/// `shr.type`: shift right, arithmetic for signed types (sign fill),
/// logical otherwise; amounts above the width clamped to the width (PTX ISA,
/// `shr`).
pub fn shr(t: IntType, a: Value, amount: Value) -> Value {
    both(a, amount, |a, n| {
        let n = (n as u32).min(t.bits);
        if t.signed {
            let x = t.extend(a);
            t.wrap(x >> n.min(127))
        } else if n == t.bits {
            0
        } else {
            t.trunc(a) >> n
        }
    })
}

/// `bfe.type d, a, b, c`: extract `c & 0xff` bits of `a` from bit `b & 0xff`;
/// for signed types the result is sign-extended from the last extracted bit
/// (or from bit `msb` when the field runs past it); a zero length gives 0
/// (PTX ISA, `bfe`, its pseudocode).
pub fn bfe(t: IntType, a: Value, pos: Value, len: Value) -> Value {
    let (Some(a), Some(pos), Some(len)) = (a.0, pos.0, len.0) else {
        return Value::UNKNOWN;
    };
    let msb = t.bits - 1;
    let pos = (pos & 0xff) as u32;
    let len = (len & 0xff) as u32;
    let bit = |i: u32| (a >> i) & 1;
    let sbit = if !t.signed || len == 0 {
        0
    } else {
        bit((pos + len - 1).min(msb))
    };
    let mut d = 0;
    for i in 0..=msb {
        let b = if i < len && pos + i <= msb {
            bit(pos + i)
        } else {
            sbit
        };
        d |= b << i;
    }
    Value::known(d)
}

/// `bfi.type f, a, b, c, d`: `b` with `d & 0xff` bits from bit `c & 0xff`
/// replaced by the low bits of `a`; bits past the width are dropped (PTX ISA,
/// `bfi`).
pub fn bfi(t: IntType, a: Value, b: Value, pos: Value, len: Value) -> Value {
    let (Some(a), Some(b), Some(pos), Some(len)) = (a.0, b.0, pos.0, len.0) else {
        return Value::UNKNOWN;
    };
    let msb = t.bits - 1;
    let pos = (pos & 0xff) as u32;
    let len = (len & 0xff) as u32;
    let mut f = t.trunc(b);
    let mut i = 0;
    while i < len && pos + i <= msb {
        let bit = (a >> i) & 1;
        f = (f & !(1 << (pos + i))) | (bit << (pos + i));
        i += 1;
    }
    Value::known(f)
}

/// The mode of a `prmt` (PTX ISA, `prmt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// No mode: four 4-bit selectors in `c`, each a byte index (bits 0-2) and
    /// a sign-replicate flag (bit 3).
    Generic,
    /// `.f4e`: forward 4 extract.
    F4e,
    /// `.b4e`: backward 4 extract.
    B4e,
    /// `.rc8`: replicate byte 0 of the selection.
    Rc8,
    /// `.ecl`: edge clamp left.
    Ecl,
    /// `.ecr`: edge clamp right.
    Ecr,
    /// `.rc16`: replicate half-word 0.
    Rc16,
}

/// `prmt.b32{.mode} d, a, b, c`: pick four bytes of the 8-byte value
/// `{b, a}` (bytes 0-3 from `a`, 4-7 from `b`) as `c` and the mode select
/// (PTX ISA, `prmt`, its selector tables).
pub fn prmt(mode: PrmtMode, a: Value, b: Value, c: Value) -> Value {
    let (Some(a), Some(b), Some(c)) = (a.0, b.0, c.0) else {
        return Value::UNKNOWN;
    };
    let bytes = (a & 0xffff_ffff) | ((b & 0xffff_ffff) << 32);
    let byte = |i: u64| (bytes >> (8 * (i & 7))) & 0xff;
    let c = c as u32;
    let d = match mode {
        PrmtMode::Generic => {
            let mut d = 0u64;
            for i in 0..4 {
                let sel = u64::from((c >> (4 * i)) & 0xf);
                let v = byte(sel & 7);
                let v = if sel & 8 != 0 {
                    if v & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    v
                };
                d |= v << (8 * i);
            }
            d
        }
        mode => {
            let s = u64::from(c & 3);
            let sel: [u64; 4] = match mode {
                PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
                PrmtMode::B4e => [s, s + 7, s + 6, s + 5],
                PrmtMode::Rc8 => [s; 4],
                PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
                PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
                PrmtMode::Rc16 => {
                    let lo = 2 * (s & 1);
                    [lo, lo + 1, lo, lo + 1]
                }
                PrmtMode::Generic => unreachable!("handled above"),
            };
            sel.iter()
                .enumerate()
                .fold(0, |d, (i, &s)| d | (byte(s) << (8 * i)))
        }
    };
    Value::known(d)
}

/// `lop3.b32 d, a, b, c, lut`: each bit of `d` is bit `4a + 2b + c` of `lut`
/// (PTX ISA, `lop3`: `ta = 0xF0`, `tb = 0xCC`, `tc = 0xAA`).
pub fn lop3(a: Value, b: Value, c: Value, lut: u8) -> Value {
    let (Some(a), Some(b), Some(c)) = (a.0, b.0, c.0) else {
        // A table that ignores an operand still gives a known result where
        // the others are known: evaluate with the unknown operand at every
        // value of its bits, which is two values per bit.
        return lop3_partial(a, b, c, lut);
    };
    Value::known(lop3_bits(a as u32, b as u32, c as u32, lut))
}

fn lop3_bits(a: u32, b: u32, c: u32, lut: u8) -> u64 {
    let mut d = 0u32;
    for i in 0..32 {
        let idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
        d |= u32::from((lut >> idx) & 1) << i;
    }
    u64::from(d)
}

fn lop3_partial(a: Value, b: Value, c: Value, lut: u8) -> Value {
    // The result is known when it is the same with every unknown operand all
    // zeros and all ones bit by bit, that is when the table does not depend
    // on the unknown operands: check the table itself.
    let unknown = [a.0.is_none(), b.0.is_none(), c.0.is_none()];
    for idx in 0u8..8 {
        for (k, &u) in unknown.iter().enumerate() {
            let bit = 1 << (2 - k);
            if u && (lut >> idx) & 1 != (lut >> (idx ^ bit)) & 1 {
                return Value::UNKNOWN;
            }
        }
    }
    let known = |v: Value| v.0.unwrap_or(0) as u32;
    Value::known(lop3_bits(known(a), known(b), known(c), lut))
}

/// `popc.type`: the number of one bits.
pub fn popc(t: IntType, a: Value) -> Value {
    a.map(|a| u64::from(t.trunc(a).count_ones()))
}

/// `clz.type`: the number of leading zeros within the width.
pub fn clz(t: IntType, a: Value) -> Value {
    a.map(|a| u64::from(t.trunc(a).leading_zeros() - (64 - t.bits)))
}

/// `brev.type`: the bits reversed within the width.
pub fn brev(t: IntType, a: Value) -> Value {
    a.map(|a| t.trunc(a).reverse_bits() >> (64 - t.bits))
}

/// `bfind{.shiftamt}.type`: the position of the most significant
/// non-sign bit (`0xffffffff` if none); with `shiftamt`, the left shift that
/// would bring it to the top (PTX ISA, `bfind`).
pub fn bfind(t: IntType, a: Value, shiftamt: bool) -> Value {
    a.map(|a| {
        let x = t.trunc(a);
        let x = if t.signed && (x >> (t.bits - 1)) & 1 == 1 {
            t.trunc(!x)
        } else {
            x
        };
        if x == 0 {
            0xffff_ffff
        } else {
            let msb = 63 - x.leading_zeros();
            u64::from(if shiftamt { t.bits - 1 - msb } else { msb })
        }
    })
}

/// An integer comparison of `setp`/`set`/`slct` (PTX ISA, table "Integer
/// comparison operators").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `eq`.
    Eq,
    /// `ne`.
    Ne,
    /// `lt`: signed or unsigned as the type says.
    Lt,
    /// `le`.
    Le,
    /// `gt`.
    Gt,
    /// `ge`.
    Ge,
    /// `lo`: unsigned `<` whatever the type.
    Lo,
    /// `ls`: unsigned `<=`.
    Ls,
    /// `hi`: unsigned `>`.
    Hi,
    /// `hs`: unsigned `>=`.
    Hs,
}

impl Cmp {
    /// The comparison named `name` (`"lt"`, `"hs"`, ...).
    pub fn from_name(name: &str) -> Option<Cmp> {
        Some(match name {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" => Cmp::Lt,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "ge" => Cmp::Ge,
            "lo" => Cmp::Lo,
            "ls" => Cmp::Ls,
            "hi" => Cmp::Hi,
            "hs" => Cmp::Hs,
            _ => return None,
        })
    }
}

/// `a cmp b` of type `t`, or unknown.
pub fn compare(t: IntType, cmp: Cmp, a: Value, b: Value) -> Option<bool> {
    let (a, b) = (a.0?, b.0?);
    let (sa, sb) = (t.extend(a), t.extend(b));
    let u = t.unsigned();
    let (ua, ub) = (u.extend(a), u.extend(b));
    Some(match cmp {
        Cmp::Eq => sa == sb,
        Cmp::Ne => sa != sb,
        Cmp::Lt => sa < sb,
        Cmp::Le => sa <= sb,
        Cmp::Gt => sa > sb,
        Cmp::Ge => sa >= sb,
        Cmp::Lo => ua < ub,
        Cmp::Ls => ua <= ub,
        Cmp::Hi => ua > ub,
        Cmp::Hs => ua >= ub,
    })
}

/// How `setp`/`set` combine a comparison with a third predicate operand
/// (`.and`, `.or`, `.xor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `.and`.
    And,
    /// `.or`.
    Or,
    /// `.xor`.
    Xor,
}

/// `a op b` of two predicates that may be unknown; a known `false` decides
/// `.and` and a known `true` decides `.or`.
pub fn bool_op(op: BoolOp, a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match op {
        BoolOp::And => match (a, b) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        BoolOp::Or => match (a, b) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        BoolOp::Xor => Some(a? ^ b?),
    }
}

/// `selp.type d, a, b, c`: `a` if `c`, else `b`; with `c` unknown, known only
/// where `a` and `b` are the same known value.
pub fn selp(a: Value, b: Value, c: Option<bool>) -> Value {
    match c {
        Some(true) => a,
        Some(false) => b,
        None if a == b => a,
        None => Value::UNKNOWN,
    }
}

/// `cvt{.sat}.dtype.stype d, a` between integer types: `a` read as `stype`
/// (sign- or zero-extended), then truncated to `dtype`, or clamped to its
/// range with `sat` (PTX ISA, `cvt`, "Integer Conversions").
pub fn cvt(dst: IntType, src: IntType, a: Value, sat: bool) -> Value {
    a.map(|a| {
        let x = src.extend(a);
        if sat {
            dst.saturate(x)
        } else {
            dst.wrap(x)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(x: u64) -> Value {
        Value::known(x)
    }

    #[test]
    fn unknown_propagates_except_where_the_result_is_determined() {
        let u = Value::UNKNOWN;
        assert_eq!(add(IntType::U32, u, k(1), false), u);
        assert_eq!(mul(IntType::U32, Half::Lo, u, k(0)), k(0));
        assert_eq!(and(IntType::U32, u, k(0)), k(0));
        assert_eq!(and(IntType::U32, u, k(0xffff_0000_0000)), k(0));
        assert_eq!(or(IntType::U16, u, k(0xffff)), k(0xffff));
        assert_eq!(or(IntType::U32, u, k(0xffff)), u);
        assert_eq!(selp(k(4), k(4), None), k(4));
        assert_eq!(selp(k(4), k(5), None), u);
        assert_eq!(bool_op(BoolOp::And, None, Some(false)), Some(false));
        assert_eq!(bool_op(BoolOp::Xor, None, Some(false)), None);
        // lop3 with the table of `a & b` ignores c.
        assert_eq!(lop3(k(0b1100), k(0b1010), u, 0xF0 & 0xCC), k(0b1000));
        assert_eq!(lop3(k(0b1100), k(0b1010), u, 0xF0 & 0xCC & 0xAA), u);
    }

    #[test]
    fn division_by_zero_is_unknown() {
        assert_eq!(div(IntType::U32, k(7), k(0)), Value::UNKNOWN);
        assert_eq!(rem(IntType::S32, k(7), k(0)), Value::UNKNOWN);
        // Only the type's bits count: 1 << 32 is a 32-bit zero.
        assert_eq!(div(IntType::U32, k(7), k(1 << 32)), Value::UNKNOWN);
        assert_eq!(
            div(IntType::S32, k(0x8000_0000), k(0xffff_ffff)),
            k(0x8000_0000)
        );
        assert_eq!(rem(IntType::S32, k(0x8000_0000), k(0xffff_ffff)), k(0));
        assert_eq!(
            div(IntType::S32, k(-7i32 as u32 as u64), k(2)),
            k(-3i32 as u32 as u64)
        );
        assert_eq!(
            rem(IntType::S32, k(-7i32 as u32 as u64), k(2)),
            k(-1i32 as u32 as u64)
        );
    }

    #[test]
    fn shifts_clamp_their_amount_to_the_width() {
        assert_eq!(shl(IntType::U32, k(1), k(31)), k(0x8000_0000));
        assert_eq!(shl(IntType::U32, k(1), k(32)), k(0));
        assert_eq!(shl(IntType::U32, k(1), k(0xffff_ffff)), k(0));
        assert_eq!(shr(IntType::S32, k(0x8000_0000), k(40)), k(0xffff_ffff));
        assert_eq!(shr(IntType::U32, k(0x8000_0000), k(40)), k(0));
        assert_eq!(shr(IntType::S16, k(0x8000), k(4)), k(0xf800));
    }

    #[test]
    fn products_of_each_half() {
        let a = k(0xffff_ffff);
        assert_eq!(mul(IntType::U32, Half::Lo, a, a), k(1));
        assert_eq!(mul(IntType::U32, Half::Hi, a, a), k(0xffff_fffe));
        assert_eq!(
            mul(IntType::U32, Half::Wide, a, a),
            k(0xffff_fffe_0000_0001)
        );
        // -1 * -1 = 1: the signed high half is 0.
        assert_eq!(mul(IntType::S32, Half::Hi, a, a), k(0));
        assert_eq!(mul(IntType::S32, Half::Wide, a, k(2)), k(-2i64 as u64));
        assert_eq!(
            mad(IntType::U32, Half::Wide, k(3), k(4), k(5), false),
            k(17)
        );
        assert_eq!(
            mad(
                IntType::S32,
                Half::Hi,
                k(0x7fff_ffff),
                k(0x7fff_ffff),
                k(0x7fff_ffff),
                true
            ),
            k(0x7fff_ffff)
        );
        assert_eq!(mul24(IntType::U32, Half::Lo, k(0x0100_0003), k(2)), k(6));
        assert_eq!(
            mul24(IntType::S32, Half::Lo, k(0x00ff_ffff), k(2)),
            k(0xffff_fffe)
        );
        assert_eq!(
            mul24(IntType::U32, Half::Hi, k(0xff_ffff), k(0xff_ffff)),
            k(0xffff_fe00)
        );
    }

    #[test]
    fn bit_fields_follow_the_isa_pseudocode() {
        // bfe.u32 of bits 4-11 of 0xabcd: 0xbc.
        assert_eq!(bfe(IntType::U32, k(0xabcd), k(4), k(8)), k(0xbc));
        // bfe.s32: the field's top bit (bit 11 of 0xabcd, 1) is replicated.
        assert_eq!(bfe(IntType::S32, k(0xabcd), k(4), k(8)), k(0xffff_ffbc));
        assert_eq!(bfe(IntType::S32, k(0xabcd), k(4), k(0)), k(0));
        // A field past bit 31: its sign bit is bit 31.
        assert_eq!(
            bfe(IntType::S32, k(0x8000_0000), k(28), k(10)),
            k(0xffff_fff8)
        );
        // Only the low 8 bits of pos and len count.
        assert_eq!(bfe(IntType::U32, k(0xabcd), k(0x104), k(0x208)), k(0xbc));
        assert_eq!(
            bfi(IntType::U32, k(0xf), k(0xffff_0000), k(4), k(4)),
            k(0xffff_00f0)
        );
        assert_eq!(
            bfi(IntType::U32, k(0xff), k(0), k(28), k(8)),
            k(0xf000_0000)
        );
    }

    #[test]
    fn prmt_picks_bytes_as_its_selectors_say() {
        let (a, b) = (k(0x4433_2211), k(0x8877_6655));
        assert_eq!(prmt(PrmtMode::Generic, a, b, k(0x3210)), k(0x4433_2211));
        assert_eq!(prmt(PrmtMode::Generic, a, b, k(0x7654)), k(0x8877_6655));
        assert_eq!(prmt(PrmtMode::Generic, a, b, k(0x0123)), k(0x1122_3344));
        // Selector 0xf: the sign of byte 7 (0x88) replicated; the others pick byte 0.
        assert_eq!(prmt(PrmtMode::Generic, a, b, k(0xf)), k(0x1111_11ff));
        assert_eq!(prmt(PrmtMode::F4e, a, b, k(1)), k(0x5544_3322));
        assert_eq!(prmt(PrmtMode::B4e, a, b, k(1)), k(0x7788_1122));
        assert_eq!(prmt(PrmtMode::Rc8, a, b, k(2)), k(0x3333_3333));
        assert_eq!(prmt(PrmtMode::Ecl, a, b, k(2)), k(0x4433_3333));
        assert_eq!(prmt(PrmtMode::Ecr, a, b, k(1)), k(0x2222_2211));
        assert_eq!(prmt(PrmtMode::Rc16, a, b, k(1)), k(0x4433_4433));
    }

    #[test]
    fn bit_counts() {
        assert_eq!(popc(IntType::U32, k(0xf0f0)), k(8));
        assert_eq!(clz(IntType::U32, k(1)), k(31));
        assert_eq!(clz(IntType::U32, k(0)), k(32));
        assert_eq!(brev(IntType::U32, k(1)), k(0x8000_0000));
        assert_eq!(bfind(IntType::U32, k(0x10), false), k(4));
        assert_eq!(bfind(IntType::U32, k(0x10), true), k(27));
        assert_eq!(bfind(IntType::U32, k(0), false), k(0xffff_ffff));
        assert_eq!(bfind(IntType::S32, k(0xffff_ffff), false), k(0xffff_ffff));
        assert_eq!(bfind(IntType::S32, k(0xffff_fff0), false), k(3));
    }

    #[test]
    fn conversions_extend_by_the_source_and_saturate_to_the_destination() {
        assert_eq!(
            cvt(IntType::S32, IntType::S8, k(0x80), false),
            k(0xffff_ff80)
        );
        assert_eq!(cvt(IntType::U32, IntType::U8, k(0x180), false), k(0x80));
        assert_eq!(
            cvt(IntType::U64, IntType::S32, k(0xffff_ffff), false),
            k(u64::MAX)
        );
        assert_eq!(cvt(IntType::U8, IntType::S32, k(0xffff_ffff), true), k(0));
        assert_eq!(cvt(IntType::U8, IntType::S32, k(300), true), k(255));
        assert_eq!(cvt(IntType::S8, IntType::U32, k(300), true), k(127));
        assert_eq!(cvt(IntType::U32, IntType::S64, k(u64::MAX), true), k(0));
        assert_eq!(
            cvt(IntType::U16, IntType::U32, k(0x12345), false),
            k(0x2345)
        );
    }

    #[test]
    fn comparisons_of_each_kind() {
        let m1 = k(0xffff_ffff);
        assert_eq!(compare(IntType::S32, Cmp::Lt, m1, k(0)), Some(true));
        assert_eq!(compare(IntType::U32, Cmp::Lt, m1, k(0)), Some(false));
        assert_eq!(compare(IntType::S32, Cmp::Lo, m1, k(0)), Some(false));
        assert_eq!(compare(IntType::S32, Cmp::Hi, m1, k(0)), Some(true));
        assert_eq!(compare(IntType::U32, Cmp::Eq, k(1 << 32), k(0)), Some(true));
        assert_eq!(compare(IntType::U32, Cmp::Eq, Value::UNKNOWN, k(0)), None);
        assert_eq!(Cmp::from_name("hs"), Some(Cmp::Hs));
        assert_eq!(Cmp::from_name("equ"), None);
    }
}

/// The integer ops against Rust's own, for every width and signedness.
#[cfg(all(test, feature = "proptest"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn k(x: u64) -> Value {
        Value::known(x)
    }

    macro_rules! against_rust {
        ($name:ident, $t:ty, $ut:ty, $wide:ty, $ity:expr) => {
            proptest! {
                #[test]
                fn $name(a in any::<$t>(), b in any::<$t>(), c in any::<$t>(), n in 0u32..80) {
                    let t: IntType = $ity;
                    let bits = |x: $t| x as $ut as u64;
                    let (va, vb, vc) = (k(bits(a)), k(bits(b)), k(bits(c)));
                    prop_assert_eq!(add(t, va, vb, false), k(bits(a.wrapping_add(b))));
                    prop_assert_eq!(add(t, va, vb, true), k(bits(a.saturating_add(b))));
                    prop_assert_eq!(sub(t, va, vb, false), k(bits(a.wrapping_sub(b))));
                    prop_assert_eq!(sub(t, va, vb, true), k(bits(a.saturating_sub(b))));
                    prop_assert_eq!(mul(t, Half::Lo, va, vb), k(bits(a.wrapping_mul(b))));
                    let wide = (a as $wide).wrapping_mul(b as $wide);
                    prop_assert_eq!(
                        mul(t, Half::Hi, va, vb),
                        k(bits((wide >> <$t>::BITS) as $t))
                    );
                    if <$t>::BITS < 64 {
                        prop_assert_eq!(
                            mul(t, Half::Wide, va, vb),
                            k(t.wide().trunc(wide as u64))
                        );
                    }
                    prop_assert_eq!(
                        mad(t, Half::Lo, va, vb, vc, false),
                        k(bits(a.wrapping_mul(b).wrapping_add(c)))
                    );
                    prop_assert_eq!(
                        div(t, va, vb),
                        a.checked_div(b).or((b != 0).then(|| a.wrapping_div(b)))
                            .map_or(Value::UNKNOWN, |q| k(bits(q)))
                    );
                    prop_assert_eq!(
                        rem(t, va, vb),
                        (b != 0).then(|| a.wrapping_rem(b)).map_or(Value::UNKNOWN, |r| k(bits(r)))
                    );
                    prop_assert_eq!(min(t, va, vb), k(bits(a.min(b))));
                    prop_assert_eq!(max(t, va, vb), k(bits(a.max(b))));
                    prop_assert_eq!(neg(t, va), k(bits((0 as $t).wrapping_sub(a))));
                    prop_assert_eq!(not(t, va), k(bits(!a)));
                    prop_assert_eq!(and(t, va, vb), k(bits(a & b)));
                    prop_assert_eq!(or(t, va, vb), k(bits(a | b)));
                    prop_assert_eq!(xor(t, va, vb), k(bits(a ^ b)));
                    prop_assert_eq!(cnot(t, va), k(u64::from(a == 0)));
                    let clamped = n.min(<$t>::BITS);
                    let shl_ref = a.checked_shl(clamped).unwrap_or(0);
                    prop_assert_eq!(shl(t, va, k(u64::from(n))), k(bits(shl_ref)));
                    let negative = <$t>::MIN != 0 && a.leading_zeros() == 0;
                    let shr_ref = a.checked_shr(clamped).unwrap_or(if negative { !0 } else { 0 });
                    prop_assert_eq!(shr(t, va, k(u64::from(n))), k(bits(shr_ref)));
                    prop_assert_eq!(popc(t, va), k(u64::from(a.count_ones())));
                    prop_assert_eq!(clz(t, va), k(u64::from(a.leading_zeros())));
                    prop_assert_eq!(brev(t, va), k(bits(a.reverse_bits())));
                    prop_assert_eq!(compare(t, Cmp::Lt, va, vb), Some(a < b));
                    prop_assert_eq!(compare(t, Cmp::Ge, va, vb), Some(a >= b));
                    prop_assert_eq!(compare(t, Cmp::Lo, va, vb), Some((a as $ut) < (b as $ut)));
                    prop_assert_eq!(compare(t, Cmp::Hs, va, vb), Some((a as $ut) >= (b as $ut)));
                    // Every conversion from this type: Rust's `as` is cvt
                    // without .sat; try_from and the range decide .sat.
                    prop_assert_eq!(cvt(IntType::S8, t, va, false), k(u64::from(a as i8 as u8)));
                    prop_assert_eq!(cvt(IntType::U16, t, va, false), k(u64::from(a as u16)));
                    prop_assert_eq!(cvt(IntType::S32, t, va, false), k(u64::from(a as i32 as u32)));
                    prop_assert_eq!(cvt(IntType::U64, t, va, false), k(a as u64));
                    prop_assert_eq!(cvt(IntType::S64, t, va, false), k(a as i64 as u64));
                    let sat_u8 = u8::try_from(a).unwrap_or(if negative { 0 } else { u8::MAX });
                    prop_assert_eq!(cvt(IntType::U8, t, va, true), k(u64::from(sat_u8)));
                    let sat_s16 = i16::try_from(a).unwrap_or(if negative { i16::MIN } else { i16::MAX });
                    prop_assert_eq!(cvt(IntType::S16, t, va, true), k(u64::from(sat_s16 as u16)));
                    // Values wider than the type are read truncated.
                    prop_assert_eq!(add(t, k(bits(a) | !t.trunc(u64::MAX)), vb, false), k(bits(a.wrapping_add(b))));
                }
            }
        };
    }

    against_rust!(u8_ops, u8, u8, u16, IntType::U8);
    against_rust!(s8_ops, i8, u8, i16, IntType::S8);
    against_rust!(u16_ops, u16, u16, u32, IntType::U16);
    against_rust!(s16_ops, i16, u16, i32, IntType::S16);
    against_rust!(u32_ops, u32, u32, u64, IntType::U32);
    against_rust!(s32_ops, i32, u32, i64, IntType::S32);
    against_rust!(u64_ops, u64, u64, u128, IntType::U64);
    against_rust!(s64_ops, i64, u64, i128, IntType::S64);

    /// bfe and bfi against a bit-by-bit reading of the ISA's definitions that
    /// uses Rust's shifts and masks instead.
    fn bfe_ref(a: u32, pos: u32, len: u32, signed: bool) -> u32 {
        let (pos, len) = (pos & 0xff, len & 0xff);
        if len == 0 {
            return 0;
        }
        let field = if pos >= 32 { 0 } else { a >> pos };
        let width = len.min(32u32.saturating_sub(pos));
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
        let field = field & mask;
        if signed {
            let sign = (a >> (pos + len - 1).min(31)) & 1;
            if sign == 1 {
                field | !mask
            } else {
                field
            }
        } else {
            field
        }
    }

    proptest! {
        #[test]
        fn bfe_matches_shift_and_mask(a in any::<u32>(), pos in 0u32..300, len in 0u32..300, signed in any::<bool>()) {
            let t = IntType::new(32, signed);
            prop_assert_eq!(
                bfe(t, k(u64::from(a)), k(u64::from(pos)), k(u64::from(len))),
                k(u64::from(bfe_ref(a, pos, len, signed)))
            );
        }

        #[test]
        fn bfi_then_bfe_gives_the_field_back(a in any::<u32>(), b in any::<u32>(), pos in 0u32..32, len in 1u32..32) {
            let f = bfi(IntType::U32, k(u64::from(a)), k(u64::from(b)), k(u64::from(pos)), k(u64::from(len)));
            let back = bfe(IntType::U32, f, k(u64::from(pos)), k(u64::from(len)));
            prop_assert_eq!(back, k(u64::from(bfe_ref(a, 0, len.min(32 - pos), false))));
        }

        #[test]
        fn lop3_of_the_named_tables_is_the_expression(a in any::<u32>(), b in any::<u32>(), c in any::<u32>()) {
            let (ta, tb, tc) = (0xF0u8, 0xCCu8, 0xAAu8);
            let v = |x: u32| k(u64::from(x));
            prop_assert_eq!(lop3(v(a), v(b), v(c), (ta & tb) ^ tc), v((a & b) ^ c));
            prop_assert_eq!(lop3(v(a), v(b), v(c), ta | (!tb & tc)), v(a | (!b & c)));
            prop_assert_eq!(lop3(v(a), v(b), v(c), !ta), v(!a));
        }

        #[test]
        fn generic_prmt_is_a_byte_shuffle(a in any::<u32>(), b in any::<u32>(), c in any::<u32>()) {
            let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
            let mut want = [0u8; 4];
            for (i, w) in want.iter_mut().enumerate() {
                let sel = (c >> (4 * i)) & 0xf;
                let byte = bytes[(sel & 7) as usize];
                *w = if sel & 8 != 0 { ((byte as i8) >> 7) as u8 } else { byte };
            }
            prop_assert_eq!(
                prmt(PrmtMode::Generic, k(u64::from(a)), k(u64::from(b)), k(u64::from(c))),
                k(u64::from(u32::from_le_bytes(want)))
            );
        }
    }
}
