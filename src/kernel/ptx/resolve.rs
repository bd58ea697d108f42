//! Kernels, arguments and inputs as a user names them (feature `resolve`):
//! the one place `smem kernel` and Python's `kernel()` turn what they are
//! given into PTX, a [`Kernel`] and launch arguments, so that both give the
//! same answer.
//!
//! - **Inputs** ([`locate`]): a `.ptx` file; a `.cu` file, compiled with
//!   `nvcc -ptx -lineinfo` when nvcc is on `PATH` (else an error giving the
//!   command to run); a Triton cache entry (its hash directory, its
//!   `<name>.json`, its `__grp__<name>.json` group file, or its `.ptx`); a
//!   Triton cache root (the directory of hash directories), where a kernel
//!   name picks the entry.
//! - **Kernels** ([`find_kernel`]): by the mangled name, the C++ name
//!   (`transpose`, `transpose(float*, float const*)`, `ns::k<32>`) or a
//!   unique prefix of any of them; an unknown or ambiguous name lists the
//!   kernels, mangled and demangled, at most eight.
//! - **Parameters** ([`Signature`], [`prepare_args`]): by index or PTX name
//!   as always, by the Python name of a Triton kernel (from its TTIR, where
//!   Triton 3.x keeps them: the cache's `.json` has none), and with the type
//!   the source gives: an `int` is a `.u32` in PTX but takes `-1`, a `half`
//!   is a `.b16` and takes `1.0`.
//!
//! # Example
//!
//! ```
//! use smem_model::kernel::ptx::{self, resolve};
//!
//! let text = ".version 8.0\n.target sm_90\n.address_size 64\n\
//!     .visible .entry _Z5scalePfi(.param .u64 _Z5scalePfi_param_0, .param .u32 _Z5scalePfi_param_1)\n\
//!     {\nret;\n}\n";
//! let module = ptx::parse(text)?;
//! // The C++ name, or a prefix of it.
//! assert_eq!(resolve::find_kernel(&module, Some("scale"))?, "_Z5scalePfi");
//! assert_eq!(resolve::find_kernel(&module, Some("sca"))?, "_Z5scalePfi");
//! let (kernel, signature) = resolve::kernel(&module, Some("scale"), None)?;
//! // `int n` is a `.u32` parameter: -1 is its two's complement.
//! let args = resolve::prepare_args(&kernel, signature.as_ref(), &["1=-1".parse()?])?;
//! assert_eq!(args[0].value, "0xffffffff");
//! # Ok::<(), smem_model::Error>(())
//! ```

use std::path::{Path, PathBuf};

use super::launch::bounded_list;
use super::{
    Arg, ArgKey, Kernel, KernelLaunch, Module, ParamKind, TensorMap, FAKE_POINTER_BASE,
    FAKE_POINTER_STRIDE,
};
use crate::{ComputeCapability, Error};

/// At most this many names in a message listing kernels or parameters.
const LISTED: usize = 8;

/// The largest Python source read for a Triton kernel's `constexpr` names
/// (4 MiB).
const MAX_PYTHON_SOURCE: u64 = 4 << 20;

/// `name` demangled with its parameters (`transpose(float*, float const*)`),
/// or `None` when it is not a mangled C++ name.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::resolve::demangle;
///
/// assert_eq!(demangle("_Z9transposePfPKf").as_deref(), Some("transpose(float*, float const*)"));
/// assert_eq!(demangle("fx_softmax"), None);
/// ```
pub fn demangle(name: &str) -> Option<String> {
    let symbol = cpp_demangle::Symbol::new(name).ok()?;
    symbol.demangle().ok()
}

/// `name` demangled without parameters or return type (`transpose`,
/// `tile<32>`).
fn brief(name: &str) -> Option<String> {
    let symbol = cpp_demangle::Symbol::new(name).ok()?;
    let options = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    symbol.demangle_with_options(&options).ok()
}

/// A kernel as a listing shows it: `mangled (demangled)`.
fn shown(name: &str) -> String {
    match demangle(name) {
        Some(d) => format!("{name} ({d})"),
        None => name.to_owned(),
    }
}

/// The mangled name of the kernel of `module` that `query` names: its
/// mangled name; its C++ name with or without template arguments and
/// parameters (`transpose`, `transpose(float*, float const*)`); or a prefix
/// of any of these that only one kernel has. `None` names the module's only
/// kernel.
///
/// # Errors
///
/// - [`Error::NoKernel`]: no kernel has that name or prefix, or `None` was
///   given for a module of several kernels (or none). The message lists the
///   kernels, mangled and demangled, at most eight.
/// - [`Error::AmbiguousKernel`]: several have it (a prefix, or a C++ name
///   with overloads or template instances), listed the same way.
pub fn find_kernel(module: &Module<'_>, query: Option<&str>) -> Result<String, Error> {
    let names: Vec<&str> = module.entries().map(|f| f.name).collect();
    // Only the names a message shows are demangled for it.
    let listing = |which: &[&str]| {
        let mut shown: Vec<String> = which.iter().take(LISTED).map(|n| shown(n)).collect();
        shown.extend(which.iter().skip(LISTED).map(|n| (*n).to_owned()));
        bounded_list(&shown, LISTED)
    };
    let Some(query) = query else {
        return match names.as_slice() {
            [only] => Ok((*only).to_owned()),
            _ => Err(Error::NoKernel {
                name: String::new(),
                kernels: listing(&names),
            }),
        };
    };
    if names.contains(&query) {
        return Ok(query.to_owned());
    }
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let wanted = squeeze(query);
    // Every form of each name: mangled, demangled, without parameters,
    // without template arguments.
    let forms: Vec<(&str, Vec<String>)> = names
        .iter()
        .map(|&n| {
            let mut forms = vec![n.to_owned()];
            if let Some(full) = demangle(n) {
                forms.push(squeeze(&full));
            }
            if let Some(b) = brief(n) {
                let b = squeeze(&b);
                if let Some(i) = b.find('<') {
                    forms.push(b[..i].to_owned());
                }
                forms.push(b);
            }
            (n, forms)
        })
        .collect();
    let pick = |hit: &dyn Fn(&str) -> bool| -> Vec<&str> {
        forms
            .iter()
            .filter(|(_, f)| f.iter().any(|f| hit(f)))
            .map(|(n, _)| *n)
            .collect()
    };
    let mut found = pick(&|f| f == wanted);
    if found.is_empty() {
        found = pick(&|f| f.starts_with(&wanted));
    }
    match found.as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => Err(Error::NoKernel {
            name: query.to_owned(),
            kernels: listing(&names),
        }),
        several => Err(Error::AmbiguousKernel {
            name: query.to_owned(),
            count: several.len(),
            kernels: listing(several),
        }),
    }
}

/// What the source language says a parameter holds, where it differs from
/// what the PTX declares: PTX has no signed parameters in nvcc's output and
/// no half-precision ones at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SourceKind {
    /// A signed integer (`int`, `long`, `signed char`): negative values read
    /// as their two's complement.
    Signed,
    /// An unsigned integer or `bool`.
    Unsigned,
    /// A Triton integer (`i32`, `i64`: Python ints, signless in the IR): a
    /// negative value reads as its two's complement, a positive one up to the
    /// unsigned maximum (Triton types an int past the signed range `u64`).
    Signless,
    /// `half` / `__half` (Triton `fp16`), passed as a `.b16`.
    Half,
    /// `__nv_bfloat16` (Triton `bf16`), passed as a `.b16`.
    BFloat16,
    /// `float` or `double`.
    Float,
    /// A pointer.
    Pointer,
    /// Anything else (a struct, an enum): the PTX's type rules.
    Other,
}

/// A parameter as the source declares it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceParam {
    /// Its name (Triton's Python name), where the source keeps one: C++
    /// mangling keeps none.
    pub name: Option<String>,
    /// Its type as written (`int`, `float const*`, `i32`, `!tt.ptr<f32>`).
    pub ty: String,
    /// What that type means for an argument.
    pub kind: SourceKind,
}

/// A kernel's parameters as its source declares them: from the demangled C++
/// signature ([`Signature::of_cpp`]) or Triton's IR
/// ([`Signature::of_triton_ir`]), in PTX parameter order. Triton adds
/// parameters of its own after the user's (scratch pointers): those have no
/// source entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signature {
    /// The source's parameters, the first of the PTX's.
    pub params: Vec<SourceParam>,
    /// Names the source declares that are not launch parameters (Triton's
    /// `constexpr`s, and ints Triton specialised as the constant 1).
    pub constexprs: Vec<String>,
}

/// Splits `list` (the text inside one pair of brackets) at its top-level
/// commas.
fn split_top(list: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut quoted) = (0i32, 0, false);
    for (i, c) in list.char_indices() {
        match c {
            '"' => quoted = !quoted,
            _ if quoted => {}
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = list[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

/// The text between the `(` at `open` and its matching `)`.
fn bracketed(text: &str, open: usize) -> Option<&str> {
    let (mut depth, mut quoted) = (0i32, false);
    for (i, c) in text[open..].char_indices() {
        match c {
            '"' => quoted = !quoted,
            _ if quoted => {}
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[open + 1..open + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// What a C++ type (as cpp_demangle writes it) means for an argument.
fn cpp_kind(ty: &str) -> SourceKind {
    let ty = ty.trim();
    if ty.ends_with('*') || ty.ends_with('&') {
        return SourceKind::Pointer;
    }
    match ty {
        "int" | "short" | "long" | "long long" | "signed char" | "char" | "wchar_t"
        | "__int128" => SourceKind::Signed,
        "bool" | "char8_t" | "char16_t" | "char32_t" => SourceKind::Unsigned,
        _ if ty.starts_with("unsigned") => SourceKind::Unsigned,
        "float" | "double" => SourceKind::Float,
        "__half" | "half" => SourceKind::Half,
        "__nv_bfloat16" | "nv_bfloat16" => SourceKind::BFloat16,
        _ => SourceKind::Other,
    }
}

/// What a Triton IR type means for an argument.
fn triton_kind(ty: &str) -> SourceKind {
    let ty = ty.trim();
    match ty {
        _ if ty.starts_with("!tt.ptr") => SourceKind::Pointer,
        "i1" => SourceKind::Unsigned,
        "i8" | "i16" | "i32" | "i64" => SourceKind::Signless,
        "f16" => SourceKind::Half,
        "bf16" => SourceKind::BFloat16,
        "f32" | "f64" => SourceKind::Float,
        _ => SourceKind::Other,
    }
}

impl Signature {
    /// The parameter types of the C++ kernel `mangled`
    /// (`_Z9transposePfPKfi`: `float*`, `float const*`, `int`), or `None`
    /// when it is not a mangled C++ function name.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::resolve::{Signature, SourceKind};
    ///
    /// let s = Signature::of_cpp("_Z6kernelPfi6__half").unwrap();
    /// let kinds: Vec<SourceKind> = s.params.iter().map(|p| p.kind).collect();
    /// assert_eq!(kinds, [SourceKind::Pointer, SourceKind::Signed, SourceKind::Half]);
    /// assert_eq!(s.params[1].ty, "int");
    /// ```
    pub fn of_cpp(mangled: &str) -> Option<Signature> {
        let full = demangle(mangled)?;
        let close = full.rfind(')')?;
        // The parameter list is the last top-level bracket: find its `(`.
        let mut depth = 0i32;
        let mut open = None;
        for (i, c) in full[..=close].char_indices().rev() {
            match c {
                ')' => depth += 1,
                '(' => {
                    depth -= 1;
                    if depth == 0 {
                        open = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let list = &full[open? + 1..close];
        let params = split_top(list)
            .into_iter()
            .filter(|t| *t != "void")
            .map(|ty| SourceParam {
                name: None,
                ty: ty.to_owned(),
                kind: cpp_kind(ty),
            })
            .collect();
        Some(Signature {
            params,
            constexprs: Vec::new(),
        })
    }

    /// The parameters of the Triton kernel `kernel` from its TTIR or TTGIR
    /// text (the cache's `.ttir`/`.ttgir`, `compiled.asm["ttir"]`): Triton 3.x
    /// keeps the Python names there (`tt.func public @k(%x_ptr: !tt.ptr<f32>
    /// loc("x_ptr"(#loc)), ...)`), and nowhere else in its cache. The
    /// `constexpr`s are the names of the Python `def` (read from its source
    /// file, where the IR's location names one that can be read) that the IR
    /// does not have. `None` when the text has no such function.
    pub fn of_triton_ir(ir: &str, kernel: &str) -> Option<Signature> {
        let head = format!("@{kernel}(");
        let at = ir.find(&head)?;
        let open = at + head.len() - 1;
        let list = bracketed(ir, open)?;
        let mut def_loc = None;
        let mut params = Vec::new();
        for arg in split_top(list) {
            // `%name: type {attrs} loc(...)`
            let (ssa, rest) = arg.split_once(':')?;
            let ssa = ssa.trim().trim_start_matches('%');
            let ty_end = rest
                .find(" {")
                .or_else(|| rest.find(" loc("))
                .unwrap_or(rest.len());
            let ty = rest[..ty_end].trim();
            let mut name = None;
            if let Some(l) = rest.find("loc(") {
                let inner = bracketed(rest, l + 3).unwrap_or("");
                name = loc_name(ir, inner, &mut def_loc);
            }
            if name.is_none() && !is_numbered(ssa) {
                name = Some(ssa.to_owned());
            }
            params.push(SourceParam {
                name,
                ty: ty.to_owned(),
                kind: triton_kind(ty),
            });
        }
        let constexprs = def_loc
            .and_then(|l| python_def_params(ir, &l, kernel))
            .map(|all| {
                all.into_iter()
                    .filter(|n| !params.iter().any(|p| p.name.as_deref() == Some(n)))
                    .collect()
            })
            .unwrap_or_default();
        Some(Signature { params, constexprs })
    }

    /// The name of parameter `index` as a message shows it.
    fn name(&self, index: usize) -> Option<&str> {
        self.params.get(index).and_then(|p| p.name.as_deref())
    }
}

/// `%arg0`, `%0`: a name MLIR made up.
fn is_numbered(ssa: &str) -> bool {
    let digits = ssa.trim_start_matches("arg");
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The argument name of an IR location: `"x_ptr"(#loc)` inline, or `#loc3`
/// that a line `#loc3 = loc("x_ptr"(#loc))` defines; notes the enclosing
/// location (`#loc`, the Python `def`) in `def_loc`.
fn loc_name(ir: &str, inner: &str, def_loc: &mut Option<String>) -> Option<String> {
    let inner = inner.trim();
    let text = if inner.starts_with('#') {
        let line = ir
            .lines()
            .find(|l| l.starts_with(&format!("{inner} = loc(")))?;
        let open = line.find("loc(")? + 3;
        bracketed(line, open)?.trim().to_owned()
    } else {
        inner.to_owned()
    };
    // `"name"(#loc)`: a name around the def's location.
    let rest = text.strip_prefix('"')?;
    let (name, after) = rest.split_once('"')?;
    let after = after.trim();
    if !after.starts_with('(') {
        // `"file.py":25:0`: a file location, not a name.
        return None;
    }
    if def_loc.is_none() {
        *def_loc = Some(after.trim_matches(|c| c == '(' || c == ')').to_owned());
    }
    Some(name.to_owned())
}

/// The parameter names of the Python `def` at location `loc` (`#loc`, which
/// the IR defines as `loc("file.py":25:0)`), read from its source file.
fn python_def_params(ir: &str, loc: &str, kernel: &str) -> Option<Vec<String>> {
    let line = ir
        .lines()
        .find(|l| l.starts_with(&format!("{loc} = loc(")))?;
    let open = line.find("loc(")? + 3;
    let inner = bracketed(line, open)?;
    let rest = inner.trim().strip_prefix('"')?;
    let (file, pos) = rest.split_once('"')?;
    let number: usize = pos
        .trim_start_matches(':')
        .split(':')
        .next()?
        .parse()
        .ok()?;
    // The IR names the file: read it only if it is a plain file of a
    // source's size (not a device, a pipe or a multi-gigabyte blob).
    let meta = std::fs::metadata(file).ok()?;
    if !meta.is_file() || meta.len() > MAX_PYTHON_SOURCE {
        return None;
    }
    let source = std::fs::read_to_string(file).ok()?;
    // The def may sit under decorators: the first `def kernel(` from the line.
    let tail: String = source
        .lines()
        .skip(number.saturating_sub(1))
        .take(200)
        .collect::<Vec<_>>()
        .join("\n");
    let at = tail.find(&format!("def {kernel}("))?;
    let open = at + 4 + kernel.len();
    let list = bracketed(&tail, open)?;
    Some(
        split_top(list)
            .into_iter()
            .filter_map(|p| {
                let name = p.split([':', '=']).next()?.trim().trim_start_matches('*');
                (!name.is_empty()).then(|| name.to_owned())
            })
            .collect(),
    )
}

/// The kernel `query` names ([`find_kernel`]; Triton's metadata name when
/// `query` is `None`), ready to run, with its source signature: Triton's
/// where `triton` has one, else the demangled C++ one when its parameter
/// count is the PTX's.
///
/// # Errors
///
/// Those of [`find_kernel`] and [`Kernel::new`].
pub fn kernel(
    module: &Module<'_>,
    query: Option<&str>,
    triton: Option<&TritonMeta>,
) -> Result<(Kernel, Option<Signature>), Error> {
    let query = query.or(triton.and_then(|t| t.name.as_deref()));
    let name = find_kernel(module, query)?;
    let kernel = Kernel::new(module, Some(&name))?;
    let count = kernel.params().len();
    let signature = triton
        .and_then(|t| t.signature.clone())
        .filter(|s| s.params.len() <= count)
        .or_else(|| Signature::of_cpp(&name).filter(|s| s.params.len() == count));
    Ok((kernel, signature))
}

/// The launch arguments `args` (by index, PTX name, or the source's name)
/// checked against `kernel` and its `signature`, each keyed by index, with
/// values the source's type gives re-written as the PTX parameter reads them
/// (`-1` for an `int` as `0xffffffff`, `1.0` for a `half` as `0x3c00`).
///
/// # Errors
///
/// - [`Error::UnknownKernelParam`]: a name or index the kernel does not
///   have (the message lists its parameters, at most sixteen).
/// - [`Error::ConstexprKernelArg`]: a Triton `constexpr`, named.
/// - [`Error::DuplicateKernelArg`]: two arguments for one parameter.
/// - [`Error::KernelArgValue`]: a value outside the source type's range.
/// - [`Error::UnsetKernelParam`]: every scalar parameter without an
///   argument, named at once.
pub fn prepare_args(
    kernel: &Kernel,
    signature: Option<&Signature>,
    args: &[Arg],
) -> Result<Vec<Arg>, Error> {
    let params = kernel.params();
    let name_of =
        |i: usize| -> &str { signature.and_then(|s| s.name(i)).unwrap_or(params[i].name) };
    let type_of = |i: usize| -> String {
        signature
            .and_then(|s| s.params.get(i))
            .map_or_else(|| params[i].kind.to_string(), |p| p.ty.clone())
    };
    let unknown = |given: &ArgKey| {
        let listed: Vec<String> = (0..params.len())
            .map(|i| format!("{i}: {} ({})", name_of(i), type_of(i)))
            .collect();
        Error::UnknownKernelParam {
            given: given.to_string(),
            params: bounded_list(&listed, 16),
        }
    };
    let mut seen: Vec<bool> = vec![false; params.len()];
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        let index = match &arg.key {
            ArgKey::Index(i) if *i < params.len() => *i,
            ArgKey::Index(_) => return Err(unknown(&arg.key)),
            ArgKey::Name(name) => {
                let by_source = signature.and_then(|s| {
                    s.params
                        .iter()
                        .position(|p| p.name.as_deref() == Some(name))
                });
                match by_source.or_else(|| params.iter().position(|p| p.name == name)) {
                    Some(i) => i,
                    None if signature.is_some_and(|s| s.constexprs.contains(name)) => {
                        return Err(Error::ConstexprKernelArg { name: name.clone() });
                    }
                    None => return Err(unknown(&arg.key)),
                }
            }
        };
        if std::mem::replace(&mut seen[index], true) {
            return Err(Error::DuplicateKernelArg {
                index,
                name: name_of(index).to_owned(),
            });
        }
        let source = signature.and_then(|s| s.params.get(index)).map(|p| p.kind);
        let value = convert(&arg.value, params[index].kind, source).ok_or_else(|| {
            Error::KernelArgValue {
                name: name_of(index).to_owned(),
                value: arg.value.clone(),
                kind: type_of(index),
            }
        })?;
        out.push(Arg {
            key: ArgKey::Index(index),
            value,
        });
    }
    // A pointer the source declares but the PTX does not show as one (a
    // `.u64` the kernel never uses as an address) gets its fake address too.
    for (i, p) in params.iter().enumerate() {
        let source = signature.and_then(|s| s.params.get(i)).map(|p| p.kind);
        if !seen[i] && p.kind != ParamKind::Pointer && source == Some(SourceKind::Pointer) {
            seen[i] = true;
            out.push(Arg {
                key: ArgKey::Index(i),
                value: format!("{:#x}", FAKE_POINTER_BASE + FAKE_POINTER_STRIDE * i as u64),
            });
        }
    }
    // Tensor maps may be left out: their copies are then not modelled.
    let maps = kernel.tensor_map_params();
    let unset: Vec<String> = (0..params.len())
        .filter(|&i| !seen[i] && params[i].kind != ParamKind::Pointer && !maps.contains(&i))
        .map(|i| format!("{i} ({}, {})", name_of(i), type_of(i)))
        .collect();
    if !unset.is_empty() {
        return Err(Error::UnsetKernelParam {
            count: unset.len(),
            params: bounded_list(&unset, LISTED),
        });
    }
    Ok(out)
}

/// Tensor maps by parameter index.
pub type BoundMaps = Vec<(usize, TensorMap)>;

/// The tensor maps `maps` bound to `kernel`'s parameters by index (a key
/// may be a Triton Python name), and the scalar arguments a Triton
/// `TensorDescriptor` passes after its map, derived from it where `given`
/// does not give them: its shape (`i32` each, outermost first) and its
/// strides in elements (`i64` each, the innermost 1), as Triton 3.x's IR
/// declares them (`%a_desc: !tt.tensordesc<..>, %a_desc_0: i32, ..,
/// %a_desc_3: i64`).
///
/// # Errors
///
/// [`Error::UnknownKernelParam`] for a key that names no parameter.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::{self, resolve, ArgKey};
///
/// let module = ptx::parse(
///     ".version 8.0\n.target sm_90\n.address_size 64\n\
///      .visible .entry k(.param .align 64 .b8 k_param_0[128], .param .u32 k_param_1)\n{\nret;\n}\n",
/// )?;
/// let (kernel, signature) = resolve::kernel(&module, None, None)?;
/// let maps = [(ArgKey::Index(0), "dims:512x512,box:128x64,elem:2,swizzle:128".parse()?)];
/// let (bound, extra) = resolve::tensor_map_args(&kernel, signature.as_ref(), &maps, &[])?;
/// assert_eq!(bound[0].0, 0);
/// // Not a Triton kernel: no shape or strides to derive.
/// assert!(extra.is_empty());
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn tensor_map_args(
    kernel: &Kernel,
    signature: Option<&Signature>,
    maps: &[(ArgKey, TensorMap)],
    given: &[Arg],
) -> Result<(BoundMaps, Vec<Arg>), Error> {
    let params = kernel.params();
    let mut bound = Vec::with_capacity(maps.len());
    let mut extra = Vec::new();
    for (key, map) in maps {
        let by_source = match key {
            ArgKey::Name(name) => signature.and_then(|s| {
                s.params
                    .iter()
                    .position(|p| p.name.as_deref() == Some(name))
            }),
            ArgKey::Index(_) => None,
        };
        let index = match by_source {
            Some(i) => i,
            None => KernelLaunch::param_index(key, &params)?,
        };
        bound.push((index, map.clone()));
        let Some(sig) = signature else { continue };
        let is_desc = sig
            .params
            .get(index)
            .is_some_and(|p| p.ty.starts_with("!tt.tensordesc"));
        if !is_desc {
            continue;
        }
        let name = sig.params[index].name.clone();
        let elem = u64::from(map.elem_bytes());
        let mut values: Vec<u64> = map.dims();
        values.extend(map.strides().iter().map(|s| s / elem));
        values.push(1);
        for (k, v) in values.into_iter().enumerate() {
            let i = index + 1 + k;
            let same = sig.params.get(i).is_some_and(|p| p.name == name);
            let set = given.iter().any(|a| a.key == ArgKey::Index(i));
            if same && !set {
                extra.push(Arg {
                    key: ArgKey::Index(i),
                    value: v.to_string(),
                });
            }
        }
    }
    Ok((bound, extra))
}

/// `text` re-written as a parameter of PTX kind `ptx` reads it, where the
/// source kind says more than the PTX: `None` when it is out of the source
/// type's range. Hex text is the bits, as given.
fn convert(text: &str, ptx: ParamKind, source: Option<SourceKind>) -> Option<String> {
    let hex = text.starts_with("0x") || text.starts_with("0X");
    let (Some(source), false) = (source, hex) else {
        return Some(text.to_owned());
    };
    match (source, ptx) {
        (
            SourceKind::Signed | SourceKind::Signless,
            ParamKind::Int {
                bits,
                signed: false,
            },
        ) => {
            let v: i128 = text.parse().ok()?;
            let min = -(1i128 << (bits - 1));
            let max = if source == SourceKind::Signed {
                (1i128 << (bits - 1)) - 1
            } else {
                (1i128 << bits) - 1
            };
            if v < min || v > max {
                return None;
            }
            Some(format!("{:#x}", (v as u128) & ((1u128 << bits) - 1)))
        }
        (SourceKind::Unsigned, ParamKind::Int { bits, .. }) => {
            let v: u128 = text.parse().ok()?;
            (bits >= 128 || v >> bits == 0).then(|| text.to_owned())
        }
        (SourceKind::Half | SourceKind::BFloat16, ParamKind::Int { bits: 16, .. })
        | (SourceKind::Half | SourceKind::BFloat16, ParamKind::Float { bits: 16 }) => {
            let v: f64 = text.parse().ok()?;
            let (bits, finite) = if source == SourceKind::Half {
                let h = half::f16::from_f64(v);
                (h.to_bits(), h.is_finite())
            } else {
                let h = half::bf16::from_f64(v);
                (h.to_bits(), h.is_finite())
            };
            // A finite value too large for 16 bits is out of range, not inf.
            if v.is_finite() && !finite {
                return None;
            }
            Some(format!("{bits:#x}"))
        }
        _ => Some(text.to_owned()),
    }
}

/// What Triton's metadata says of a kernel: its cache entry's `.json` (or a
/// compiled kernel's `metadata`) and the signature its IR gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TritonMeta {
    /// The kernel's name.
    pub name: Option<String>,
    /// Warps per block (the block is 32 times this).
    pub num_warps: Option<u32>,
    /// Shared bytes the launch gives (dynamic shared memory).
    pub shared: Option<u32>,
    /// The capability it was compiled for (`target.arch`, 90).
    pub arch: Option<ComputeCapability>,
    /// The Python parameters, from the IR beside the PTX.
    pub signature: Option<Signature>,
}

impl TritonMeta {
    /// Reads a cache entry's `.json` (`None` when it is not a JSON object).
    pub fn from_json(text: &str) -> Option<TritonMeta> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        v.as_object()?;
        let num = |key: &str| {
            v.get(key)
                .and_then(serde_json::Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        Some(TritonMeta {
            name: v.get("name").and_then(|n| n.as_str()).map(str::to_owned),
            num_warps: num("num_warps"),
            shared: num("shared"),
            arch: v
                .get("target")
                .and_then(|t| t.get("arch"))
                .and_then(serde_json::Value::as_u64)
                .and_then(|a| format!("sm_{a}").parse().ok()),
            signature: None,
        })
    }
}

/// An input resolved to PTX.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The PTX's path (for a `.cu`, the `.cu`: its PTX is not kept).
    pub path: PathBuf,
    /// The PTX text.
    pub text: String,
    /// Triton's metadata, for a Triton cache entry.
    pub triton: Option<TritonMeta>,
    /// The command that compiled a `.cu`.
    pub compiled_with: Option<String>,
    /// Whether the kernel name given picked this entry out of a Triton cache
    /// root (by kernel name or hash prefix): the kernel is then the entry's.
    picked: bool,
}

impl Input {
    /// PTX text given as such, with Triton's metadata if any.
    pub fn from_text(text: String, triton: Option<TritonMeta>) -> Input {
        Input {
            path: PathBuf::from("<ptx>"),
            text,
            triton,
            compiled_with: None,
            picked: false,
        }
    }

    /// The name to find the kernel by in [`Input::text`] ([`kernel`]):
    /// `given`, unless it picked the entry out of a cache root (a hash
    /// prefix is no kernel name): then the entry's own kernel.
    pub fn kernel_query<'a>(&'a self, given: Option<&'a str>) -> Option<&'a str> {
        if self.picked {
            None
        } else {
            given
        }
    }
}

fn input_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::KernelInput {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| input_error(path, format!("cannot read: {e}")))
}

/// The command [`locate`] runs for a `.cu` (and prints when nvcc is missing).
///
/// # Example
///
/// ```
/// use std::path::Path;
/// use smem_model::kernel::ptx::resolve::nvcc_command;
/// use smem_model::ComputeCapability;
///
/// assert_eq!(
///     nvcc_command(Path::new("k.cu"), Path::new("k.ptx"), ComputeCapability::Sm80),
///     "nvcc -ptx -lineinfo -arch=sm_80 -o k.ptx k.cu"
/// );
/// ```
pub fn nvcc_command(cu: &Path, ptx: &Path, arch: ComputeCapability) -> String {
    format!(
        "nvcc -ptx -lineinfo -arch={} -o {} {}",
        arch.sm_name(),
        ptx.display(),
        cu.display()
    )
}

/// Finds the PTX of `path`: a `.ptx` (with Triton's metadata beside it, if
/// any), a `.cu` (compiled for `arch`, default sm_90), a Triton cache entry
/// (directory, `.json`, `__grp__*.json`) or a Triton cache root (the
/// directory of hash directories; `kernel` picks the entry by its kernel's
/// name or a prefix of it, or of its hash).
///
/// # Errors
///
/// [`Error::KernelInput`]: a file that cannot be read, a directory with no
/// PTX or several that `kernel` does not tell apart (they are listed), a
/// `.cu` when nvcc is not on `PATH` (the message gives the command to run
/// where it is) or that nvcc does not compile (its messages).
pub fn locate(
    path: &Path,
    kernel: Option<&str>,
    arch: Option<ComputeCapability>,
) -> Result<Input, Error> {
    let ext = |p: &Path, x: &str| p.extension().is_some_and(|e| e == x);
    if path.is_dir() {
        return locate_dir(path, kernel);
    }
    if ext(path, "cu") {
        return compile_cu(path, arch.unwrap_or(ComputeCapability::Sm90));
    }
    if ext(path, "json") {
        let stem = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(child) = stem.strip_prefix("__grp__") {
            return from_group(path, child);
        }
        let meta = triton_meta(path)?;
        let same = path.with_extension("ptx");
        let ptx = if same.exists() {
            same
        } else {
            path.with_file_name("kernel.ptx")
        };
        return from_ptx(&ptx, Some(meta));
    }
    let same = path.with_extension("json");
    let sibling = path.with_file_name("kernel.json");
    let meta = [same, sibling]
        .into_iter()
        .find(|p| p.exists())
        .and_then(|p| triton_meta(&p).ok());
    from_ptx(path, meta)
}

/// Reads Triton's `.json` and the IR beside it.
fn triton_meta(json: &Path) -> Result<TritonMeta, Error> {
    let mut meta = TritonMeta::from_json(&read(json)?)
        .ok_or_else(|| input_error(json, "not Triton metadata (a JSON object)"))?;
    if let Some(name) = meta.name.clone() {
        let stem = json
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("kernel");
        meta.signature = ["ttir", "ttgir"]
            .iter()
            .flat_map(|x| {
                [
                    json.with_extension(x),
                    json.with_file_name(format!("{stem}.{x}")),
                ]
            })
            .chain(["kernel.ttir", "kernel.ttgir"].map(|n| json.with_file_name(n)))
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .find_map(|ir| Signature::of_triton_ir(&ir, &name));
    }
    Ok(meta)
}

fn from_ptx(ptx: &Path, triton: Option<TritonMeta>) -> Result<Input, Error> {
    Ok(Input {
        path: ptx.to_path_buf(),
        text: read(ptx)?,
        triton,
        compiled_with: None,
        picked: false,
    })
}

/// A `__grp__<name>.json`: `{"child_paths": {"<name>.ptx": PATH, ...}}`; a
/// child missing at its recorded path is looked for beside the group file
/// (a cache copied elsewhere).
fn from_group(group: &Path, child: &str) -> Result<Input, Error> {
    let v: serde_json::Value = serde_json::from_str(&read(group)?)
        .map_err(|e| input_error(group, format!("not a Triton group file: {e}")))?;
    let children = v
        .get("child_paths")
        .and_then(|c| c.as_object())
        .ok_or_else(|| input_error(group, "not a Triton group file (no child_paths)"))?;
    let find = |x: &str| -> Option<PathBuf> {
        let (name, recorded) = children
            .iter()
            .find(|(k, _)| Path::new(k).extension().is_some_and(|e| e == x))?;
        let recorded = PathBuf::from(recorded.as_str()?);
        Some(if recorded.exists() {
            recorded
        } else {
            group.with_file_name(name)
        })
    };
    let ptx = find("ptx").ok_or_else(|| input_error(group, "its kernel has no PTX"))?;
    let json = find("json").unwrap_or_else(|| group.with_file_name(child));
    let meta = triton_meta(&json)?;
    from_ptx(&ptx, Some(meta))
}

/// A directory: a cache entry (its `.ptx` files), or a cache root (its
/// subdirectories' `.ptx` files).
fn locate_dir(dir: &Path, kernel: Option<&str>) -> Result<Input, Error> {
    let ptxs_of = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        v.sort();
        v
    };
    std::fs::read_dir(dir).map_err(|e| input_error(dir, format!("cannot read: {e}")))?;
    let mut ptxs = ptxs_of(dir);
    let root = ptxs.is_empty();
    if root {
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        subdirs.sort();
        ptxs = subdirs.iter().flat_map(|d| ptxs_of(d)).collect();
    }
    let label = |p: &Path| -> String {
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default();
        if root {
            let hash = p
                .parent()
                .and_then(|d| d.file_name())
                .map(|h| h.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{stem} ({hash})")
        } else {
            stem.into_owned()
        }
    };
    if let Some(query) = kernel {
        if ptxs.len() > 1 {
            let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
            let hash = |p: &Path| {
                p.parent()
                    .and_then(|d| d.file_name())
                    .map(|h| h.to_string_lossy().into_owned())
            };
            let exact: Vec<PathBuf> = ptxs
                .iter()
                .filter(|p| stem(p).as_deref() == Some(query))
                .cloned()
                .collect();
            ptxs = if exact.is_empty() {
                ptxs.into_iter()
                    .filter(|p| {
                        stem(p).is_some_and(|s| s.starts_with(query))
                            || (root && hash(p).is_some_and(|h| h.starts_with(query)))
                    })
                    .collect()
            } else {
                exact
            };
        }
    }
    match ptxs.as_slice() {
        [one] => {
            let json = one.with_extension("json");
            let meta = if json.exists() {
                Some(triton_meta(&json)?)
            } else {
                None
            };
            let mut input = from_ptx(one, meta)?;
            input.picked = root && kernel.is_some();
            Ok(input)
        }
        [] => Err(input_error(
            dir,
            match kernel {
                Some(k) if root => format!("no Triton kernel here is named {k}"),
                _ => "holds no .ptx file (nor do its subdirectories)".to_owned(),
            },
        )),
        several => {
            let listed: Vec<String> = several.iter().map(|p| label(p)).collect();
            Err(input_error(
                dir,
                format!(
                    "holds {} kernels: {}; name one (--kernel, Python's kernel=): a kernel \
                     name, a prefix of one, or of its hash directory",
                    several.len(),
                    bounded_list(&listed, LISTED)
                ),
            ))
        }
    }
}

/// The first `nvcc` on `PATH`.
fn find_nvcc() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("nvcc"))
        .find(|p| p.is_file())
}

/// Compiles `cu` to PTX with nvcc, into a temporary file read back and
/// removed.
fn compile_cu(cu: &Path, arch: ComputeCapability) -> Result<Input, Error> {
    let shown_ptx = cu.with_extension("ptx");
    let Some(nvcc) = find_nvcc() else {
        return Err(input_error(
            cu,
            format!(
                "nvcc is not on PATH, so the .cu cannot be compiled here: run `{}` where it is \
                 and give the .ptx (nvcc needs no GPU: `pip install nvidia-cuda-nvcc \
                 nvidia-cuda-runtime nvidia-cuda-crt` installs it)",
                nvcc_command(cu, &shown_ptx, arch)
            ),
        ));
    };
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("smem-{}-{n}.ptx", std::process::id()));
    let run = std::process::Command::new(&nvcc)
        .args(["-ptx", "-lineinfo"])
        .arg(format!("-arch={}", arch.sm_name()))
        .arg("-o")
        .arg(&out)
        .arg(cu)
        .output()
        .map_err(|e| input_error(cu, format!("cannot run {}: {e}", nvcc.display())))?;
    let text = std::fs::read_to_string(&out);
    let _ = std::fs::remove_file(&out);
    let command = nvcc_command(cu, &shown_ptx, arch);
    if !run.status.success() {
        let stderr = String::from_utf8_lossy(&run.stderr);
        let tail: String = stderr
            .trim()
            .chars()
            .rev()
            .take(2000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(input_error(
            cu,
            format!("`{command}` failed ({}):\n{tail}", run.status),
        ));
    }
    let text = text.map_err(|e| input_error(cu, format!("nvcc wrote no PTX: {e}")))?;
    Ok(Input {
        path: cu.to_path_buf(),
        text,
        triton: None,
        compiled_with: Some(command),
        picked: false,
    })
}

/// The capability to predict on: `given`, else what Triton compiled for,
/// else the PTX's `.target`, else sm_90.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::{self, resolve};
/// use smem_model::ComputeCapability;
///
/// let module = ptx::parse(".version 8.0\n.target sm_80\n")?;
/// assert_eq!(resolve::capability(&module, None, None), ComputeCapability::Sm80);
/// let given = Some(ComputeCapability::Sm90);
/// assert_eq!(resolve::capability(&module, None, given), ComputeCapability::Sm90);
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn capability(
    module: &Module<'_>,
    triton: Option<&TritonMeta>,
    given: Option<ComputeCapability>,
) -> ComputeCapability {
    given
        .or(triton.and_then(|t| t.arch))
        .or_else(|| module.target.iter().find_map(|t| t.parse().ok()))
        .unwrap_or(ComputeCapability::Sm90)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ptx;

    const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

    fn module_of(entries: &[(&str, &str)]) -> String {
        let mut text = HEAD.to_owned();
        for (name, params) in entries {
            text.push_str(&format!(".visible .entry {name}({params})\n{{\nret;\n}}\n"));
        }
        text
    }

    #[test]
    fn kernels_by_cpp_name_or_unique_prefix() {
        let text = module_of(&[
            ("_Z9transposePfPKf", ""),
            ("_Z14transposeNaivePfPKf", ""),
            ("_Z6reduceIfLi32EEvPT_", ""),
            ("_Z6reduceIiLi32EEvPT_", ""),
            ("plain_c", ""),
        ]);
        let m = ptx::parse(&text).unwrap();
        let find = |q: &str| find_kernel(&m, Some(q));
        assert_eq!(find("transpose").unwrap(), "_Z9transposePfPKf");
        assert_eq!(
            find("transpose(float*, float const*)").unwrap(),
            "_Z9transposePfPKf"
        );
        assert_eq!(find("transposeN").unwrap(), "_Z14transposeNaivePfPKf");
        assert_eq!(find("reduce<int, 32>").unwrap(), "_Z6reduceIiLi32EEvPT_");
        assert_eq!(find("plain").unwrap(), "plain_c");
        assert_eq!(find("_Z9transposePfPKf").unwrap(), "_Z9transposePfPKf");
        let err = find("reduce").unwrap_err();
        assert_eq!(
            err.to_string(),
            "reduce matches 2 kernels: _Z6reduceIfLi32EEvPT_ (void reduce<float, 32>(float*)), \
             _Z6reduceIiLi32EEvPT_ (void reduce<int, 32>(int*)); give more of the name, or the \
             mangled name"
        );
        let err = find("nothing").unwrap_err();
        assert!(
            err.to_string().starts_with(
                "the PTX module has no kernel named nothing: its kernels are _Z9transposePfPKf \
                 (transpose(float*, float const*)), "
            ),
            "{err}"
        );
        let err = find_kernel(&m, None).unwrap_err();
        assert!(matches!(err, Error::NoKernel { .. }));
    }

    #[test]
    fn a_listing_of_many_kernels_is_bounded() {
        let names: Vec<(String, &str)> = (0..1000).map(|i| (format!("k{i}_x"), "")).collect();
        let refs: Vec<(&str, &str)> = names.iter().map(|(n, p)| (n.as_str(), *p)).collect();
        let text = module_of(&refs);
        let m = ptx::parse(&text).unwrap();
        let err = find_kernel(&m, None).unwrap_err().to_string();
        assert!(err.ends_with("k6_x, k7_x and 992 more"), "{err}");
        let err = find_kernel(&m, Some("k1")).unwrap_err().to_string();
        assert!(
            err.starts_with("k1 matches 111 kernels: k1_x, k10_x,"),
            "{err}"
        );
        assert!(err.len() < 200, "{err}");
    }

    #[test]
    fn cpp_types_decide_what_a_value_means() {
        let text = module_of(&[(
            "_Z1kPfi6__half13__nv_bfloat16jf",
            ".param .u64 p0, .param .u32 p1, .param .b16 p2, .param .b16 p3, \
             .param .u32 p4, .param .f32 p5",
        )]);
        let m = ptx::parse(&text).unwrap();
        let (kernel, sig) = super::kernel(&m, Some("k"), None).unwrap();
        let sig = sig.unwrap();
        let prep = |args: &[&str]| {
            let args: Vec<Arg> = args.iter().map(|a| a.parse().unwrap()).collect();
            prepare_args(&kernel, Some(&sig), &args)
        };
        let values = |args: &[&str]| -> Vec<String> {
            prep(args).unwrap().into_iter().map(|a| a.value).collect()
        };
        assert_eq!(
            values(&["1=-1", "2=1.0", "3=-2.5", "4=7", "5=0.5"]),
            [
                "0xffffffff",
                "0x3c00",
                "0xc020",
                "7",
                "0.5",
                "0x7f0000000000"
            ]
        );
        // The bits as hex stay the bits.
        assert_eq!(
            values(&["1=0x7", "2=0x3c00", "3=1", "4=1", "5=1"])[..2],
            ["0x7", "0x3c00"]
        );
        // Out of the source type's range.
        let err = prep(&["1=2147483648", "2=1", "3=1", "4=1", "5=1"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "value 2147483648 of kernel parameter p1 does not read as int"
        );
        assert!(prep(&["1=1", "2=70000", "3=1", "4=1", "5=1"]).is_err());
        // An unsigned stays unsigned, named by its C++ type.
        assert_eq!(
            prep(&["1=1", "2=1", "3=1", "4=-1", "5=1"])
                .unwrap_err()
                .to_string(),
            "value -1 of kernel parameter p4 does not read as unsigned int"
        );
        // Every unset scalar at once, with its C++ type.
        assert_eq!(
            prep(&["2=1"]).unwrap_err().to_string(),
            "kernel parameters 1 (p1, int), 3 (p3, __nv_bfloat16), 4 (p4, unsigned int), 5 (p5, \
             float) have no value: scalar parameters must be given"
        );
        // The same parameter by index and by name.
        assert_eq!(
            prep(&["1=1", "p1=2"]).unwrap_err().to_string(),
            "kernel parameter 1 (p1) is given twice: give each argument once"
        );
        // bf16 of 1.0 and half of a value past its range.
        assert_eq!(values(&["1=1", "2=1", "3=1.0", "4=1", "5=1"])[2], "0x3f80");
        assert!(prep(&["1=1", "2=1e6", "3=1", "4=1", "5=1"]).is_err());
    }

    #[test]
    fn triton_names_from_the_ir_and_constexprs_refused() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ptx/triton_softmax");
        let input = locate(&dir.join("kernel.json"), None, None).unwrap();
        let meta = input.triton.clone().unwrap();
        let sig = meta.signature.clone().unwrap();
        let names: Vec<_> = sig.params.iter().map(|p| p.name.clone().unwrap()).collect();
        assert_eq!(
            names,
            [
                "output_ptr",
                "input_ptr",
                "input_row_stride",
                "output_row_stride",
                "n_rows",
                "n_cols"
            ]
        );
        let m = ptx::parse(&input.text).unwrap();
        let (kernel, sig) = super::kernel(&m, None, Some(&meta)).unwrap();
        let sig = sig.unwrap();
        let args: Vec<Arg> = ["n_cols=781", "input_row_stride=781", "3=-1", "n_rows=128"]
            .iter()
            .map(|a| a.parse().unwrap())
            .collect();
        let prepared = prepare_args(&kernel, Some(&sig), &args).unwrap();
        assert_eq!(prepared[0].key, ArgKey::Index(5));
        assert_eq!(prepared[2].value, "0xffffffff");
        let missing = prepare_args(&kernel, Some(&sig), &args[..1]).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "kernel parameters 2 (input_row_stride, i32), 3 (output_row_stride, i32), 4 (n_rows, \
             i32) have no value: scalar parameters must be given"
        );
        let mut with_constexpr = sig.clone();
        with_constexpr.constexprs.push("BLOCK_SIZE".into());
        let err = prepare_args(
            &kernel,
            Some(&with_constexpr),
            &["BLOCK_SIZE=1024".parse().unwrap()],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "BLOCK_SIZE is a constexpr of the Triton kernel: its value is compiled into the PTX \
             (recompile to change it), it is not a launch argument"
        );
        assert_eq!(capability(&m, Some(&meta), None), ComputeCapability::Sm90);
    }

    #[test]
    fn constexprs_come_from_the_python_def() {
        let dir = std::env::temp_dir().join(format!("smem-resolve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let py = dir.join("k.py");
        std::fs::write(
            &py,
            "import triton\n@triton.jit\ndef k(x_ptr, n,\n      BLOCK: tl.constexpr = 4):\n    pass\n",
        )
        .unwrap();
        let ir = format!(
            "#loc = loc(\"{}\":2:0)\n#loc3 = loc(\"n\"(#loc))\nmodule {{\n  tt.func public @k(%x_ptr: \
             !tt.ptr<f32> {{tt.divisibility = 16 : i32}} loc(\"x_ptr\"(#loc)), %arg1: i32 \
             loc(#loc3)) attributes {{noinline = false}} {{\n",
            py.display()
        );
        let sig = Signature::of_triton_ir(&ir, "k").unwrap();
        let names: Vec<_> = sig.params.iter().map(|p| p.name.clone()).collect();
        assert_eq!(names, [Some("x_ptr".to_owned()), Some("n".to_owned())]);
        assert_eq!(sig.params[0].kind, SourceKind::Pointer);
        assert_eq!(sig.params[1].kind, SourceKind::Signless);
        assert_eq!(sig.constexprs, ["BLOCK"]);
        // A location naming a device is not read (it would never end).
        let hostile = ir.replace(&py.display().to_string(), "/dev/zero");
        let sig = Signature::of_triton_ir(&hostile, "k").unwrap();
        assert!(sig.constexprs.is_empty() && sig.params.len() == 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn inputs_resolve_from_a_cache_root_a_group_file_and_a_cu() {
        let root = std::env::temp_dir().join(format!("smem-cache-{}", std::process::id()));
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ptx");
        for (hash, fixture, name) in [
            ("aaaa", "triton_softmax", "fx_softmax"),
            ("bbbb", "triton_colsum", "fx_colsum"),
        ] {
            let d = root.join(hash);
            std::fs::create_dir_all(&d).unwrap();
            for x in ["ptx", "json", "ttgir"] {
                std::fs::copy(
                    data.join(fixture).join(format!("kernel.{x}")),
                    d.join(format!("{name}.{x}")),
                )
                .unwrap();
            }
            std::fs::write(
                d.join(format!("__grp__{name}.json")),
                format!(
                    "{{\"child_paths\": {{\"{name}.json\": \"/nowhere/{name}.json\", \
                     \"{name}.ptx\": \"/nowhere/{name}.ptx\"}}}}"
                ),
            )
            .unwrap();
        }
        let err = locate(&root, None, None).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "holds 2 kernels: fx_softmax (aaaa), fx_colsum (bbbb); name one (--kernel, \
                 Python's kernel=): a kernel name, a prefix of one, or of its hash directory"
            ),
            "{err}"
        );
        let picked = locate(&root, Some("fx_col"), None).unwrap();
        assert_eq!(picked.triton.unwrap().name.as_deref(), Some("fx_colsum"));
        let picked = locate(&root, Some("aa"), None).unwrap();
        assert_eq!(picked.triton.as_ref().unwrap().num_warps, Some(4));
        let group = locate(&root.join("aaaa/__grp__fx_softmax.json"), None, None).unwrap();
        assert_eq!(group.path, root.join("aaaa/fx_softmax.ptx"));
        assert!(group.triton.unwrap().signature.is_some());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_cu_without_nvcc_gives_the_command() {
        if find_nvcc().is_some() {
            eprintln!("nvcc is on PATH: the message for its absence is not checked");
            return;
        }
        let err = locate(Path::new("k.cu"), None, Some(ComputeCapability::Sm80)).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "k.cu: nvcc is not on PATH, so the .cu cannot be compiled here: run `nvcc -ptx \
                 -lineinfo -arch=sm_80 -o k.ptx k.cu` where it is"
            ),
            "{err}"
        );
    }
}
