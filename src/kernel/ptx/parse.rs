//! Reading tokens into a [`Module`]: recursive descent with one token of
//! lookahead, resolving registers and labels with PTX's block scoping as it
//! goes.

use std::collections::HashMap;

use smallvec::SmallVec;

use super::ast::{
    Address, AddressBase, Function, FunctionKind, Guard, Immediate, Instruction, Label, Linkage,
    Loc, Module, Operand, Pointer, RegId, RegisterDecl, SourceFile, Special, StateSpace, Tuning,
    Type, Variable, Version,
};
use super::lex::{Kind, LexError, Lexer, Token};
use super::MAX_REGISTERS;
use crate::Error;

/// How many characters of the offending text an error quotes.
const FOUND_CHARS: usize = 32;

/// Reads a whole module.
pub(crate) fn module(text: &str) -> Result<Module<'_>, Error> {
    let mut parser = Parser::new(text);
    let mut module = Module::default();
    loop {
        let token = parser.next()?;
        match token.kind {
            Kind::Eof => return Ok(module),
            Kind::Directive => parser.module_directive(&mut module, token)?,
            _ => {
                return Err(parser.error(
                    token,
                    "a directive (.version, .target, .entry, .func, a variable, ...)",
                ));
            }
        }
    }
}

/// Declaration specifiers: state space, linkage, alignment, vector, type,
/// `.ptr` and its attributes.
#[derive(Debug, Clone, Copy, Default)]
struct Specs {
    space: Option<StateSpace>,
    linkage: Linkage,
    align: Option<u32>,
    vector: Option<u32>,
    ty: Option<Type>,
    ptr: Option<Pointer>,
}

/// The `.loc` in force: its location and the call site it was inlined at.
#[derive(Debug, Clone, Copy, Default)]
struct Source {
    loc: Option<Loc>,
    inlined_at: Option<Loc>,
}

/// What follows a declarator's name.
struct Tail<'a> {
    /// `<N>`: a register range's length.
    count: Option<u32>,
    /// `[N]` or `[]` for each dimension.
    dims: SmallVec<[Option<u64>; 2]>,
    /// The initialiser's text after `=`.
    init: Option<&'a str>,
}

/// A register name bound in a scope: one register or a range.
#[derive(Debug, Clone, Copy)]
enum Binding {
    Single(u32),
    Range { first: u32, count: u32 },
}

/// A single register's number and the depth of the block declaring it.
type SingleAt = (u32, usize);

/// A range's first number, length and the depth of the block declaring it.
type RangeAt = (u32, u32, usize);

/// What a scope must restore when it closes.
#[derive(Debug, Clone, Copy)]
enum Undo<'a> {
    /// A single register's name, and what it named before.
    Single(&'a str, Option<SingleAt>),
    /// A range's prefix: its innermost range goes.
    Range(&'a str),
    /// A label, and what it named before.
    Label(&'a str, Option<u32>),
}

/// A `Symbol` operand that may name a label defined later in its block.
#[derive(Debug, Clone, Copy)]
struct Pending<'a> {
    instruction: u32,
    operand: u8,
    name: &'a str,
}

/// A function body's scopes: register and label bindings with their undo
/// logs, and the label references not yet resolved.
#[derive(Debug, Default)]
struct Scopes<'a> {
    singles: HashMap<&'a str, SingleAt>,
    /// Each prefix's ranges, innermost last: a range shadows the outer ones
    /// only for the numbers it declares (`%r<4>` in a block leaves the outer
    /// `%r<100>`'s `%r50` in scope).
    ranges: HashMap<&'a str, SmallVec<[RangeAt; 1]>>,
    labels: HashMap<&'a str, u32>,
    undo: Vec<Undo<'a>>,
    /// For each open block: the undo log's and pending list's lengths.
    marks: Vec<(usize, usize)>,
    pending: Vec<Pending<'a>>,
}

impl<'a> Scopes<'a> {
    fn open(&mut self) {
        self.marks.push((self.undo.len(), self.pending.len()));
    }

    /// Closes the innermost block: its label references resolve against the
    /// labels in scope, and its names go out of scope. Returns whether a block
    /// was open.
    fn close(&mut self, instructions: &mut [Instruction<'a>]) -> bool {
        let Some((undo, pending)) = self.marks.pop() else {
            return false;
        };
        let labels = &self.labels;
        let mut kept = pending;
        for at in pending..self.pending.len() {
            let reference = self.pending[at];
            if let Some(&target) = labels.get(reference.name) {
                instructions[reference.instruction as usize].operands
                    [usize::from(reference.operand)] = Operand::Label(target);
            } else {
                self.pending[kept] = reference;
                kept += 1;
            }
        }
        self.pending.truncate(kept);
        for entry in self.undo.drain(undo..).rev() {
            match entry {
                Undo::Single(name, previous) => {
                    match previous {
                        Some(at) => self.singles.insert(name, at),
                        None => self.singles.remove(name),
                    };
                }
                Undo::Range(name) => {
                    if let Some(stack) = self.ranges.get_mut(name) {
                        stack.pop();
                        if stack.is_empty() {
                            self.ranges.remove(name);
                        }
                    }
                }
                Undo::Label(name, previous) => {
                    match previous {
                        Some(target) => self.labels.insert(name, target),
                        None => self.labels.remove(name),
                    };
                }
            }
        }
        true
    }

    fn bind(&mut self, name: &'a str, binding: Binding) {
        let depth = self.marks.len();
        match binding {
            Binding::Single(id) => {
                let previous = self.singles.insert(name, (id, depth));
                self.undo.push(Undo::Single(name, previous));
            }
            Binding::Range { first, count } => {
                self.ranges
                    .entry(name)
                    .or_default()
                    .push((first, count, depth));
                self.undo.push(Undo::Range(name));
            }
        }
    }

    fn label(&mut self, name: &'a str, target: u32) {
        let previous = self.labels.insert(name, target);
        self.undo.push(Undo::Label(name, previous));
    }

    /// The register `name` names in scope: the innermost declaration of
    /// that name, as a single register or as a number of a range.
    fn lookup(&self, name: &str) -> Option<RegId> {
        let single = self.singles.get(name).copied();
        let ranged = self.ranged(name);
        match (single, ranged) {
            (Some((id, at)), Some((ranged, ranged_at))) => {
                Some(RegId(if ranged_at > at { ranged } else { id }))
            }
            (Some((id, _)), None) | (None, Some((id, _))) => Some(RegId(id)),
            (None, None) => None,
        }
    }

    /// `name` as a number of a range in scope (`%r17` of `%r<100>`), with the
    /// depth of the range's block.
    fn ranged(&self, name: &str) -> Option<(u32, usize)> {
        let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        let (prefix, number) = name.split_at(name.len() - digits);
        if number.len() > 1 && number.starts_with('0') {
            return None;
        }
        let index: u32 = number.parse().ok()?;
        let stack = self.ranges.get(prefix)?;
        let &(first, _, depth) = stack.iter().rev().find(|&&(_, count, _)| index < count)?;
        Some((first + index, depth))
    }
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    peeked: Option<Token<'a>>,
    /// The end of the last token taken.
    last_end: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            lexer: Lexer::new(text),
            peeked: None,
            last_end: 0,
        }
    }

    fn text(&self) -> &'a str {
        self.lexer.text()
    }

    fn lex_error(&self, error: LexError) -> Error {
        self.error_at(error.start, error.line, error.expected)
    }

    fn next(&mut self) -> Result<Token<'a>, Error> {
        let token = match self.peeked.take() {
            Some(token) => token,
            None => self
                .lexer
                .next_token()
                .map_err(|error| self.lex_error(error))?,
        };
        self.last_end = token.start + token.text.len();
        Ok(token)
    }

    fn peek(&mut self) -> Result<Token<'a>, Error> {
        if let Some(token) = self.peeked {
            return Ok(token);
        }
        let token = self
            .lexer
            .next_token()
            .map_err(|error| self.lex_error(error))?;
        self.peeked = Some(token);
        Ok(token)
    }

    /// Takes the next token if it is punctuation `byte`.
    fn eat(&mut self, byte: u8) -> Result<bool, Error> {
        if self.peek()?.kind == Kind::Punct(byte) {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect(&mut self, byte: u8, expected: &str) -> Result<Token<'a>, Error> {
        let token = self.next()?;
        if token.kind == Kind::Punct(byte) {
            Ok(token)
        } else {
            Err(self.error(token, expected))
        }
    }

    fn error(&self, token: Token<'a>, expected: &str) -> Error {
        self.error_at(token.start, token.line, expected)
    }

    fn error_at(&self, start: usize, line: u32, expected: &str) -> Error {
        let text = self.text();
        let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
        let column = text[line_start..start].chars().count() + 1;
        let rest = &text[start..];
        let rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let rest = rest.trim_end();
        let found = if rest.is_empty() {
            if start >= text.len() {
                "end of input".to_owned()
            } else {
                "end of line".to_owned()
            }
        } else {
            let mut prefix: String = rest.chars().take(FOUND_CHARS).collect();
            if prefix.len() < rest.len() {
                prefix.push_str("...");
            }
            format!("`{prefix}`")
        };
        Error::PtxSyntax {
            line: line as usize,
            column,
            expected: expected.to_owned(),
            found,
        }
    }

    fn int_token(&mut self, expected: &str) -> Result<u64, Error> {
        let token = self.next()?;
        if token.kind != Kind::Int {
            return Err(self.error(token, expected));
        }
        int_value(token.text).ok_or_else(|| self.error(token, expected))
    }

    fn u32_token(&mut self, expected: &str) -> Result<u32, Error> {
        let token = self.next()?;
        if token.kind == Kind::Int {
            if let Some(value) = int_value(token.text).and_then(|v| u32::try_from(v).ok()) {
                return Ok(value);
            }
        }
        Err(self.error(token, expected))
    }

    /// Skips tokens up to and including the `;` that ends a statement,
    /// passing over balanced brackets.
    fn skip_statement(&mut self) -> Result<(), Error> {
        let mut depth = 0u32;
        loop {
            let token = self.next()?;
            match token.kind {
                Kind::Eof => return Err(self.error(token, "`;`")),
                Kind::Punct(b'{' | b'(' | b'[') => depth += 1,
                Kind::Punct(b'}' | b')' | b']') => depth = depth.saturating_sub(1),
                Kind::Punct(b';') if depth == 0 => return Ok(()),
                _ => {}
            }
        }
    }

    /// Skips a balanced group whose opening bracket was just taken.
    fn skip_group(&mut self, open: Token<'a>, close: u8) -> Result<(), Error> {
        let mut depth = 1u32;
        let open_byte = open.text.as_bytes()[0];
        loop {
            let token = self.next()?;
            match token.kind {
                Kind::Eof => return Err(self.error(open, "a closed bracket")),
                Kind::Punct(b) if b == open_byte => depth += 1,
                Kind::Punct(b) if b == close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }

    fn module_directive(&mut self, module: &mut Module<'a>, token: Token<'a>) -> Result<(), Error> {
        match token.text {
            ".version" => {
                let version = self.next()?;
                module.version = match version.kind {
                    Kind::Float | Kind::Int => parse_version(version.text),
                    _ => None,
                }
                .ok_or_else(|| self.error(version, "a version (`8.7`)"))?;
            }
            ".target" => loop {
                let target = self.next()?;
                if target.kind != Kind::Ident {
                    return Err(self.error(target, "a target (`sm_80`)"));
                }
                module.target.push(target.text);
                if !self.eat(b',')? {
                    break;
                }
            },
            ".address_size" => {
                let size = self.u32_token("an address size (32 or 64)")?;
                module.address_size = Some(size);
            }
            ".file" => {
                let index = self.u32_token("a file number")?;
                let name = self.next()?;
                if name.kind != Kind::Str {
                    return Err(self.error(name, "a file name in quotes"));
                }
                module.files.push(SourceFile {
                    index,
                    name: &name.text[1..name.text.len() - 1],
                });
                // Optional `, timestamp, size`.
                while self.eat(b',')? {
                    self.int_token("a number (the file's timestamp or size)")?;
                }
            }
            ".section" => {
                let name = self.next()?;
                if name.kind != Kind::Directive && name.kind != Kind::Ident {
                    return Err(self.error(name, "a section name (`.debug_info`)"));
                }
                let open = self.expect(b'{', "`{` opening the section")?;
                self.skip_group(open, b'}')?;
            }
            ".pragma" => {
                let mut pragmas = Vec::new();
                self.pragma_strings(&mut pragmas)?;
                module.pragmas.extend(pragmas);
            }
            ".alias" | ".globl" => self.skip_statement()?,
            _ => {
                let mut linkage = Linkage::Internal;
                let mut token = token;
                loop {
                    match linkage_of(token.text) {
                        Some(found) => linkage = found,
                        None if token.text == ".hidden" => {}
                        None => break,
                    }
                    token = self.next()?;
                    if token.kind != Kind::Directive {
                        return Err(self.error(token, "a directive (.entry, .func, a state space)"));
                    }
                }
                match token.text {
                    ".entry" => {
                        let function = self.function(FunctionKind::Entry, linkage, token)?;
                        module.functions.push(function);
                    }
                    ".func" => {
                        let function = self.function(FunctionKind::Func, linkage, token)?;
                        module.functions.push(function);
                    }
                    _ if StateSpace::from_directive(token.text).is_some() => {
                        let specs = self.specs(Some(token), linkage)?;
                        self.declarators(specs, token, &mut module.variables)?;
                    }
                    _ => {
                        return Err(self.error(
                            token,
                            "a directive (.version, .target, .entry, .func, a variable, ...)",
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads declaration specifiers, starting with `first` if given, up to
    /// the first token that is not a directive (the name).
    fn specs(&mut self, first: Option<Token<'a>>, linkage: Linkage) -> Result<Specs, Error> {
        let mut specs = Specs {
            linkage,
            ..Specs::default()
        };
        let mut pending = first;
        loop {
            let token = match pending.take() {
                Some(token) => token,
                None => {
                    if self.peek()?.kind != Kind::Directive {
                        return Ok(specs);
                    }
                    self.next()?
                }
            };
            let text = token.text;
            if let Some(space) = StateSpace::from_directive(text) {
                match &mut specs.ptr {
                    Some(ptr) => ptr.space = Some(space),
                    None if specs.space.is_none() => specs.space = Some(space),
                    None => return Err(self.error(token, "one state space")),
                }
            } else if let Some(ty) = Type::from_directive(text) {
                specs.ty = Some(ty);
            } else if let Some(found) = linkage_of(text) {
                specs.linkage = found;
            } else {
                match text {
                    ".align" => {
                        let align = self.u32_token("an alignment in bytes")?;
                        match &mut specs.ptr {
                            Some(ptr) => ptr.align = Some(align),
                            None => specs.align = Some(align),
                        }
                    }
                    ".v2" | ".v4" | ".v8" => specs.vector = text[2..].parse().ok(),
                    ".ptr" => specs.ptr = Some(Pointer::default()),
                    ".hidden" | ".managed" | ".unified" => {}
                    ".attribute" => {
                        let open = self.expect(b'(', "`(` after .attribute")?;
                        self.skip_group(open, b')')?;
                    }
                    _ => {
                        return Err(self.error(
                            token,
                            "a declaration attribute (a state space, a type, .align, .v2/.v4, .ptr)",
                        ));
                    }
                }
            }
        }
    }

    /// The rest of a declarator after its name: `<N>`, `[N]`..., `= init`.
    fn declarator_tail(&mut self) -> Result<Tail<'a>, Error> {
        let mut count = None;
        if self.eat(b'<')? {
            count = Some(self.u32_token("a register count")?);
            self.expect(b'>', "`>` closing a register range")?;
        }
        let mut dims = SmallVec::new();
        while self.eat(b'[')? {
            if self.eat(b']')? {
                dims.push(None);
            } else {
                dims.push(Some(self.int_token("an array length")?));
                self.expect(b']', "`]` closing an array length")?;
            }
        }
        let mut init = None;
        if self.eat(b'=')? {
            let first = self.peek()?;
            let start = first.start;
            let mut depth = 0u32;
            loop {
                let token = self.peek()?;
                match token.kind {
                    Kind::Eof => return Err(self.error(token, "`;` ending the initialiser")),
                    Kind::Punct(b'{' | b'(') => depth += 1,
                    Kind::Punct(b'}' | b')') => depth = depth.saturating_sub(1),
                    Kind::Punct(b',' | b';') if depth == 0 => break,
                    _ => {}
                }
                self.next()?;
            }
            if self.last_end <= start {
                return Err(self.error(first, "an initialiser after `=`"));
            }
            init = Some(self.text()[start..self.last_end].trim());
        }
        Ok(Tail { count, dims, init })
    }

    /// Variable declarators after `specs`, separated by commas, up to `;`.
    fn declarators(
        &mut self,
        specs: Specs,
        at: Token<'a>,
        out: &mut Vec<Variable<'a>>,
    ) -> Result<(), Error> {
        let (Some(space), Some(ty)) = (specs.space, specs.ty) else {
            let token = self.peek()?;
            return Err(self.error(token, "a type (.b8, .u32, .f32, ...) and a state space"));
        };
        loop {
            let name = self.next()?;
            if name.kind != Kind::Ident {
                return Err(self.error(name, "a variable name"));
            }
            let Tail { count, dims, init } = self.declarator_tail()?;
            if count.is_some() {
                return Err(self.error(name, "a variable (ranges `<N>` are for .reg)"));
            }
            out.push(Variable {
                name: name.text,
                space,
                linkage: specs.linkage,
                align: specs.align,
                vector: specs.vector,
                ty,
                dims,
                ptr: specs.ptr,
                init,
                line: at.line,
            });
            let end = self.next()?;
            match end.kind {
                Kind::Punct(b',') => {}
                Kind::Punct(b';') => return Ok(()),
                _ => return Err(self.error(end, "`,` or `;` after a declarator")),
            }
        }
    }

    /// A parameter list after its `(`: returns the parameters.
    fn params(
        &mut self,
        function: &mut Function<'a>,
        scopes: &mut Scopes<'a>,
    ) -> Result<Vec<Variable<'a>>, Error> {
        let mut params = Vec::new();
        if self.eat(b')')? {
            return Ok(params);
        }
        loop {
            let first = self.next()?;
            if first.kind != Kind::Directive {
                return Err(self.error(first, "a parameter (`.param .u32 name`)"));
            }
            let specs = self.specs(Some(first), Linkage::Internal)?;
            let (Some(space), Some(ty)) = (specs.space, specs.ty) else {
                let token = self.peek()?;
                return Err(self.error(token, "a parameter's state space and type"));
            };
            let name = self.next()?;
            if name.kind != Kind::Ident {
                return Err(self.error(name, "a parameter name"));
            }
            let dims = self.declarator_tail()?.dims;
            if space == StateSpace::Reg {
                self.declare_register(function, scopes, name, None, ty, specs.vector)?;
            }
            params.push(Variable {
                name: name.text,
                space,
                linkage: Linkage::Internal,
                align: specs.align,
                vector: specs.vector,
                ty,
                dims,
                ptr: specs.ptr,
                init: None,
                line: first.line,
            });
            let end = self.next()?;
            match end.kind {
                Kind::Punct(b',') => {}
                Kind::Punct(b')') => return Ok(params),
                _ => return Err(self.error(end, "`,` or `)` after a parameter")),
            }
        }
    }

    fn declare_register(
        &mut self,
        function: &mut Function<'a>,
        scopes: &mut Scopes<'a>,
        name: Token<'a>,
        count: Option<u32>,
        ty: Type,
        vector: Option<u32>,
    ) -> Result<(), Error> {
        let first = function.register_count;
        let total = first
            .checked_add(count.unwrap_or(1))
            .filter(|&total| total <= MAX_REGISTERS);
        let Some(total) = total else {
            return Err(self.error(
                name,
                "at most 4194304 registers in a function (not modelled: more)",
            ));
        };
        function.register_count = total;
        function.registers.push(RegisterDecl {
            name: name.text,
            first: RegId(first),
            count,
            ty,
            vector,
        });
        let binding = match count {
            Some(count) => Binding::Range { first, count },
            None => Binding::Single(first),
        };
        scopes.bind(name.text, binding);
        Ok(())
    }

    fn function(
        &mut self,
        kind: FunctionKind,
        linkage: Linkage,
        at: Token<'a>,
    ) -> Result<Function<'a>, Error> {
        let mut function = Function {
            name: "",
            kind,
            linkage,
            returns: Vec::new(),
            params: Vec::new(),
            tuning: Vec::new(),
            pragmas: Vec::new(),
            body_pragmas: Vec::new(),
            registers: Vec::new(),
            register_count: 0,
            variables: Vec::new(),
            instructions: Vec::new(),
            labels: Vec::new(),
            has_body: false,
            line: at.line,
        };
        let mut scopes = Scopes::default();
        // The parameters' scope, around the body's.
        scopes.open();
        // `.attribute(...)` may come before the return parameters.
        while self.peek()?.text == ".attribute" {
            self.next()?;
            let open = self.expect(b'(', "`(` after .attribute")?;
            self.skip_group(open, b')')?;
        }
        if self.eat(b'(')? {
            function.returns = self.params(&mut function, &mut scopes)?;
        }
        let name = self.next()?;
        if name.kind != Kind::Ident {
            return Err(self.error(name, "a function name"));
        }
        function.name = name.text;
        if self.eat(b'(')? {
            function.params = self.params(&mut function, &mut scopes)?;
        }
        loop {
            let token = self.next()?;
            match token.kind {
                Kind::Punct(b';') => return Ok(function),
                Kind::Punct(b'{') => break,
                Kind::Directive if token.text == ".pragma" => {
                    self.pragmas(&mut function)?;
                }
                Kind::Directive if token.text == ".attribute" => {
                    let open = self.expect(b'(', "`(` after .attribute")?;
                    self.skip_group(open, b')')?;
                }
                Kind::Directive => {
                    let mut values = SmallVec::new();
                    if self.peek()?.kind == Kind::Int {
                        loop {
                            values.push(self.u32_token("a number")?);
                            if !self.eat(b',')? {
                                break;
                            }
                        }
                    }
                    function.tuning.push(Tuning {
                        name: token.text,
                        values,
                    });
                }
                _ => {
                    return Err(self.error(
                        token,
                        "a function body `{`, `;` or a directive (.maxntid, .reqntid, ...)",
                    ));
                }
            }
        }
        function.has_body = true;
        self.body(&mut function, &mut scopes)?;
        // Resolve what still refers to the parameters' scope (nothing can be
        // a label there) and drop it.
        scopes.close(&mut function.instructions);
        // A name still unresolved is a variable or a function, which a
        // branch cannot take: its target would be nowhere, and running on
        // past it would make a path up.
        for reference in &scopes.pending {
            let instruction = &function.instructions[reference.instruction as usize];
            if instruction.opcode() == "bra" && reference.operand == 0 {
                let text = self.text();
                let at = instruction.text.as_ptr() as usize - text.as_ptr() as usize;
                let start = at + instruction.text.find(reference.name).unwrap_or(0);
                // The name's own line, counted from the top: it may sit
                // below its `bra`, and the `bra` below its guard (an error
                // path, so the count's cost does not matter).
                let line = text[..start].matches('\n').count() as u32 + 1;
                return Err(self.error_at(
                    start,
                    line,
                    "a label declared in the function as the branch's target",
                ));
            }
        }
        Ok(function)
    }

    /// `.pragma "a", "b";` after its directive, in a function's header.
    fn pragmas(&mut self, function: &mut Function<'a>) -> Result<(), Error> {
        self.pragma_strings(&mut function.pragmas)
    }

    /// `.pragma "a", "b";` in a function's body: kept with the index of the
    /// instruction after it.
    fn body_pragmas(&mut self, function: &mut Function<'a>) -> Result<(), Error> {
        let from = function.pragmas.len();
        self.pragma_strings(&mut function.pragmas)?;
        let at = u32::try_from(function.instructions.len()).unwrap_or(u32::MAX);
        let added: Vec<_> = function.pragmas[from..].iter().map(|&p| (at, p)).collect();
        function.body_pragmas.extend(added);
        Ok(())
    }

    /// The strings of `.pragma "a", "b";` after its directive.
    fn pragma_strings(&mut self, pragmas: &mut Vec<&'a str>) -> Result<(), Error> {
        loop {
            let token = self.next()?;
            if token.kind != Kind::Str {
                return Err(self.error(token, "a pragma string"));
            }
            pragmas.push(&token.text[1..token.text.len() - 1]);
            let end = self.next()?;
            match end.kind {
                Kind::Punct(b',') => {}
                Kind::Punct(b';') => return Ok(()),
                _ => return Err(self.error(end, "`;` after a pragma")),
            }
        }
    }

    /// A function body after its `{`, up to the matching `}`.
    fn body(&mut self, function: &mut Function<'a>, scopes: &mut Scopes<'a>) -> Result<(), Error> {
        scopes.open();
        let mut source = Source::default();
        loop {
            let token = self.next()?;
            match token.kind {
                Kind::Punct(b'}') => {
                    scopes.close(&mut function.instructions);
                    if scopes.marks.len() == 1 {
                        return Ok(());
                    }
                }
                Kind::Punct(b'{') => scopes.open(),
                Kind::Punct(b'@') => {
                    let start = token.start;
                    let negated = self.eat(b'!')?;
                    let reg = self.next()?;
                    let id = match reg.kind {
                        Kind::Ident => scopes.lookup(reg.text),
                        _ => None,
                    };
                    let Some(id) = id else {
                        return Err(self.error(reg, "a declared predicate register after `@`"));
                    };
                    let opcode = self.next()?;
                    if opcode.kind != Kind::Ident {
                        return Err(self.error(opcode, "an instruction after its guard"));
                    }
                    let guard = Some(Guard { reg: id, negated });
                    self.instruction(function, scopes, guard, start, opcode, source)?;
                }
                Kind::Ident => {
                    if self.eat(b':')? {
                        // `name: .callprototype ...;`, `.branchtargets`,
                        // `.calltargets` name a declaration, not a place in
                        // the code: their names stay symbols.
                        if matches!(
                            self.peek()?.text,
                            ".callprototype" | ".branchtargets" | ".calltargets"
                        ) {
                            self.next()?;
                            self.skip_statement()?;
                            continue;
                        }
                        let target = function.instructions.len() as u32;
                        function.labels.push(Label {
                            name: token.text,
                            target,
                        });
                        scopes.label(token.text, target);
                    } else {
                        self.instruction(function, scopes, None, token.start, token, source)?;
                    }
                }
                Kind::Directive => match token.text {
                    ".reg" => {
                        let specs = self.specs(Some(token), Linkage::Internal)?;
                        let Some(ty) = specs.ty else {
                            let token = self.peek()?;
                            return Err(self.error(token, "a register type (.b32, .pred, ...)"));
                        };
                        loop {
                            let name = self.next()?;
                            if name.kind != Kind::Ident {
                                return Err(self.error(name, "a register name"));
                            }
                            let count = self.declarator_tail()?.count;
                            self.declare_register(function, scopes, name, count, ty, specs.vector)?;
                            let end = self.next()?;
                            match end.kind {
                                Kind::Punct(b',') => {}
                                Kind::Punct(b';') => break,
                                _ => return Err(self.error(end, "`,` or `;` after a register")),
                            }
                        }
                    }
                    ".loc" => {
                        let file = self.u32_token("a file number after .loc")?;
                        let line = self.u32_token("a line number after .loc")?;
                        let column = self.u32_token("a column number after .loc")?;
                        source = Source {
                            loc: Some(Loc { file, line, column }),
                            inlined_at: None,
                        };
                        // `, function_name $L__info_string0, inlined_at 1 38 17`
                        // to the end of the line.
                        while self.peek()?.kind != Kind::Eof && self.peek()?.line == token.line {
                            let word = self.next()?;
                            if word.text == "inlined_at" {
                                let file = self.u32_token("a file number after inlined_at")?;
                                let line = self.u32_token("a line number after inlined_at")?;
                                let column = self.u32_token("a column number after inlined_at")?;
                                source.inlined_at = Some(Loc { file, line, column });
                            }
                        }
                    }
                    ".pragma" => self.body_pragmas(function)?,
                    _ if StateSpace::from_directive(token.text).is_some()
                        || linkage_of(token.text).is_some() =>
                    {
                        let specs = self.specs(Some(token), Linkage::Internal)?;
                        self.declarators(specs, token, &mut function.variables)?;
                    }
                    // Directives a reader of shared accesses needs nothing of
                    // (`.maxnreg` in a body, future ones): skipped whole.
                    _ => self.skip_statement()?,
                },
                _ => {
                    return Err(self.error(
                        token,
                        "an instruction, a label, a declaration or `}` closing the body",
                    ));
                }
            }
        }
    }

    fn instruction(
        &mut self,
        function: &mut Function<'a>,
        scopes: &mut Scopes<'a>,
        guard: Option<Guard>,
        start: usize,
        opcode: Token<'a>,
        source: Source,
    ) -> Result<(), Error> {
        let index = function.instructions.len() as u32;
        let mut operands: SmallVec<[Operand<'a>; 4]> = SmallVec::new();
        let mut end = self.peek()?.start;
        if !self.eat(b';')? {
            loop {
                let operand = self.operand(scopes, true)?;
                if let Operand::Symbol { name, offset: 0 } = operand {
                    if let Ok(at) = u8::try_from(operands.len()) {
                        scopes.pending.push(Pending {
                            instruction: index,
                            operand: at,
                            name,
                        });
                    }
                }
                operands.push(operand);
                let token = self.next()?;
                match token.kind {
                    Kind::Punct(b',') => {}
                    Kind::Punct(b';') => {
                        end = token.start;
                        break;
                    }
                    _ => return Err(self.error(token, "`,` or `;` after an operand")),
                }
            }
        }
        function.instructions.push(Instruction {
            guard,
            mnemonic: opcode.text,
            operands,
            text: self.text()[start..end].trim_end(),
            line: opcode.line,
            loc: source.loc,
            inlined_at: source.inlined_at,
        });
        Ok(())
    }

    /// One operand; `top` allows the bracketed forms (vectors and lists do
    /// not nest).
    fn operand(&mut self, scopes: &Scopes<'a>, top: bool) -> Result<Operand<'a>, Error> {
        let token = self.next()?;
        match token.kind {
            Kind::Ident => {
                let operand = self.name_operand(scopes, token)?;
                match operand {
                    Operand::Reg {
                        id,
                        component: None,
                        negated: false,
                    } if self.peek()?.kind == Kind::Punct(b'|') => {
                        self.next()?;
                        let second = self.next()?;
                        match (second.kind, scopes.lookup(second.text)) {
                            (Kind::Ident, Some(other)) => Ok(Operand::RegPair(id, other)),
                            _ => Err(self.error(second, "a declared predicate register after `|`")),
                        }
                    }
                    Operand::Symbol { name, .. }
                        if matches!(self.peek()?.kind, Kind::Punct(b'+' | b'-')) =>
                    {
                        let offset = self.offset()?;
                        Ok(Operand::Symbol { name, offset })
                    }
                    operand => Ok(operand),
                }
            }
            Kind::Int | Kind::Float => Ok(Operand::Imm(self.immediate(token, false)?)),
            Kind::Punct(b'-') => {
                let number = self.next()?;
                match number.kind {
                    Kind::Int | Kind::Float => Ok(Operand::Imm(self.immediate(number, true)?)),
                    _ => Err(self.error(number, "a number after `-`")),
                }
            }
            Kind::Punct(b'!') => {
                let reg = self.next()?;
                match (reg.kind, scopes.lookup(reg.text)) {
                    (Kind::Ident, Some(id)) => Ok(Operand::Reg {
                        id,
                        component: None,
                        negated: true,
                    }),
                    _ => Err(self.error(reg, "a declared predicate register after `!`")),
                }
            }
            Kind::Punct(b'[') => self.address(scopes, token),
            Kind::Punct(open @ (b'{' | b'(')) if top => {
                let close = if open == b'{' { b'}' } else { b')' };
                let mut items = Vec::new();
                if !self.eat(close)? {
                    loop {
                        items.push(self.operand(scopes, false)?);
                        let end = self.next()?;
                        match end.kind {
                            Kind::Punct(b',') => {}
                            Kind::Punct(b) if b == close => break,
                            _ => {
                                return Err(self.error(
                                    end,
                                    if open == b'{' {
                                        "`,` or `}` in a vector operand"
                                    } else {
                                        "`,` or `)` in a parameter list"
                                    },
                                ));
                            }
                        }
                    }
                }
                Ok(if open == b'{' {
                    Operand::Vector(items)
                } else {
                    Operand::List(items)
                })
            }
            _ => Err(self.error(token, "an operand")),
        }
    }

    /// `+N`, `-N` or `+-N` after a base.
    fn offset(&mut self) -> Result<i64, Error> {
        let sign = self.next()?;
        let mut negative = sign.kind == Kind::Punct(b'-');
        if self.eat(b'-')? {
            negative = !negative;
        }
        let number = self.next()?;
        let value = match number.kind {
            Kind::Int => int_value(number.text),
            _ => None,
        };
        let Some(value) = value else {
            return Err(self.error(number, "an integer offset"));
        };
        let value = value as i64;
        Ok(if negative {
            value.wrapping_neg()
        } else {
            value
        })
    }

    /// A name as an operand: `_`, a register (with component), a special
    /// register, or a symbol.
    fn name_operand(&self, scopes: &Scopes<'a>, token: Token<'a>) -> Result<Operand<'a>, Error> {
        let text = token.text;
        if text == "_" {
            return Ok(Operand::Sink);
        }
        if let Some(id) = scopes.lookup(text) {
            return Ok(Operand::Reg {
                id,
                component: None,
                negated: false,
            });
        }
        let (base, component) = match text.split_once('.') {
            Some((base, suffix)) => {
                let component = match suffix {
                    "x" | "r" => 0,
                    "y" | "g" => 1,
                    "z" | "b" => 2,
                    "w" | "a" => 3,
                    _ => return Err(self.error(token, "a register component (.x, .y, .z, .w)")),
                };
                (base, Some(component))
            }
            None => (text, None),
        };
        if let Some(id) = scopes.lookup(base) {
            return Ok(Operand::Reg {
                id,
                component,
                negated: false,
            });
        }
        if let Some(special) = Special::from_name(base) {
            return Ok(Operand::Special(special, component));
        }
        if base.starts_with('%') {
            return Err(self.error(token, "a declared register or a special register"));
        }
        if component.is_some() {
            return Err(self.error(token, "an operand"));
        }
        Ok(Operand::Symbol {
            name: text,
            offset: 0,
        })
    }

    /// An address after its `[`: the simple forms are read; any other
    /// well-bracketed content is kept as [`Operand::Opaque`].
    fn address(&mut self, scopes: &Scopes<'a>, open: Token<'a>) -> Result<Operand<'a>, Error> {
        let first = self.next()?;
        let simple_base = match first.kind {
            Kind::Ident => match self.name_operand(scopes, first) {
                Ok(Operand::Reg {
                    id,
                    component: None,
                    negated: false,
                }) => Some((AddressBase::Reg(id), 0)),
                Ok(Operand::Symbol { name, .. }) => Some((AddressBase::Symbol(name), 0)),
                _ => None,
            },
            Kind::Int => int_value(first.text).map(|value| (AddressBase::Absolute, value as i64)),
            _ => None,
        };
        if let Some((base, mut offset)) = simple_base {
            let next = self.peek()?;
            if matches!(next.kind, Kind::Punct(b'+' | b'-')) {
                offset = offset.wrapping_add(self.offset()?);
            }
            if self.eat(b']')? {
                return Ok(Operand::Address(Address { base, offset }));
            }
        }
        let mut token = first;
        // `[base, {c0, c1, ...}]`: a tensor copy's map and coordinates (or a
        // texture's).
        if let (Some((base, 0)), true) = (simple_base, self.peek()?.kind == Kind::Punct(b',')) {
            token = self.next()?;
            if self.peek()?.kind == Kind::Punct(b'{') {
                let coords = match self.operand(scopes, true)? {
                    Operand::Vector(items) => items,
                    _ => unreachable!("a `{{` operand is a vector"),
                };
                let close = self.next()?;
                if close.kind != Kind::Punct(b']') {
                    return Err(self.error(close, "`]` after the coordinates"));
                }
                return Ok(Operand::Indexed { base, coords });
            }
        }
        // Not a simple address: keep the bracketed text.
        let mut depth = 1u32;
        loop {
            match token.kind {
                Kind::Eof => return Err(self.error(open, "`]` closing an address")),
                Kind::Punct(b'[') => depth += 1,
                Kind::Punct(b']') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(Operand::Opaque(&self.text()[open.start..self.last_end]));
                    }
                }
                Kind::Punct(b';') => return Err(self.error(token, "`]` closing an address")),
                _ => {}
            }
            token = self.next()?;
        }
    }

    fn immediate(&self, token: Token<'a>, negative: bool) -> Result<Immediate, Error> {
        let text = token.text;
        let value = if token.kind == Kind::Int {
            int_value(text).map(|value| {
                let value = value as i64;
                Immediate::Int(if negative {
                    value.wrapping_neg()
                } else {
                    value
                })
            })
        } else if let Some(hex) = text.strip_prefix("0f").or_else(|| text.strip_prefix("0F")) {
            u32::from_str_radix(hex, 16)
                .ok()
                .map(|bits| Immediate::F32(if negative { bits ^ (1 << 31) } else { bits }))
        } else if let Some(hex) = text.strip_prefix("0d").or_else(|| text.strip_prefix("0D")) {
            u64::from_str_radix(hex, 16)
                .ok()
                .map(|bits| Immediate::F64(if negative { bits ^ (1 << 63) } else { bits }))
        } else {
            text.parse::<f64>()
                .ok()
                .map(|value| Immediate::F64((if negative { -value } else { value }).to_bits()))
        };
        value.ok_or_else(|| self.error(token, "a number that fits in 64 bits"))
    }
}

/// The linkage a directive names.
fn linkage_of(directive: &str) -> Option<Linkage> {
    Some(match directive {
        ".visible" => Linkage::Visible,
        ".extern" => Linkage::Extern,
        ".weak" => Linkage::Weak,
        ".common" => Linkage::Common,
        _ => return None,
    })
}

/// `8.7` as a version.
fn parse_version(text: &str) -> Option<Version> {
    let (major, minor) = text.split_once('.')?;
    Some(Version {
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
    })
}

/// The value of an integer literal (decimal, `0x`, `0b`, octal, optional
/// `U`); `None` past 64 bits.
pub(crate) fn int_value(text: &str) -> Option<u64> {
    let text = text
        .strip_suffix('U')
        .or_else(|| text.strip_suffix('u'))
        .unwrap_or(text);
    let bytes = text.as_bytes();
    if bytes.len() > 2 && bytes[0] == b'0' {
        match bytes[1] {
            b'x' | b'X' => return u64::from_str_radix(&text[2..], 16).ok(),
            b'b' | b'B' => return u64::from_str_radix(&text[2..], 2).ok(),
            _ => {}
        }
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return u64::from_str_radix(&text[1..], 8).ok();
    }
    text.parse().ok()
}
