//! Properties of the decoder and formatter over arbitrary words.

use proptest::prelude::*;
use sassport_gen::{decode, decode_all, TargetStyle, Word};
use std::sync::LazyLock;

static TABLE: LazyLock<sassport_isa::Table> = LazyLock::new(|| sassport_isa::sm86().expect("isa/sm86.txt parses"));

/// Words near real instructions: a golden word of the table with random bits flipped, so that most
/// strategies land inside known classes rather than on unused opcodes.
fn near_golden() -> impl Strategy<Value = u128> {
    let goldens: Vec<u128> = TABLE.classes.iter().flat_map(|c| c.golden.iter().map(|g| g.word)).collect();
    assert!(!goldens.is_empty());
    (0..goldens.len(), any::<u128>(), 0u32..4).prop_map(move |(i, noise, density)| {
        // Sparse noise: AND together `density` random masks.
        let mut flip = noise;
        for k in 0..density {
            flip &= noise.rotate_left(17 * (k + 1));
        }
        goldens[i] ^ (flip & !0xfff)
    })
}

fn check_word(w: u128, address: u64) -> Result<(), TestCaseError> {
    let word = Word(w);
    match decode(word) {
        Ok(inst) => {
            prop_assert_eq!(inst.word(), word);
            prop_assert_eq!(inst.class().opcode(), word.opcode_key());
            let a = inst.text(address, TargetStyle::Absolute);
            let b = decode(word).map(|i| i.text(address, TargetStyle::Absolute));
            prop_assert_eq!(Ok(a.clone()), b.map_err(|e| e.to_string()));
            prop_assert!(!a.contains('\n'), "text spans lines: {}", a);
            let label = inst.text(address, TargetStyle::Label);
            // The two styles differ only in how targets are wrapped.
            prop_assert_eq!(label.replace("`(", "").replace(')', ""), a.replace(')', ""));
            for f in inst.fields() {
                prop_assert_eq!(inst.field(f.name), Some(f.extract(word)));
            }
        }
        Err(e) => {
            prop_assert_eq!(e.word, word);
            prop_assert!(!e.to_string().is_empty());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn random_words_never_panic_and_print_stably(w in any::<u128>(), address in any::<u64>()) {
        check_word(w, address & !0xf)?;
    }

    #[test]
    fn words_near_real_instructions_print_stably(w in near_golden(), address in 0u64..0x10_0000) {
        check_word(w, address & !0xf)?;
    }

    #[test]
    fn decode_all_covers_every_byte(bytes in proptest::collection::vec(any::<u8>(), 0..200), base in any::<u32>()) {
        let items: Vec<_> = decode_all(&bytes, u64::from(base)).collect();
        prop_assert_eq!(items.len(), bytes.len().div_ceil(16));
        for (i, (address, _)) in items.iter().enumerate() {
            prop_assert_eq!(*address, u64::from(base) + 16 * i as u64);
        }
        if bytes.len() % 16 != 0 {
            let is_truncated = matches!(items.last(), Some((_, Err(sassport_gen::DecodeError::TruncatedWord { .. }))));
            prop_assert!(is_truncated);
        }
    }
}

/// The generated decoder is a compilation of the table; `sassport_isa::eval` interprets the same table
/// directly. They must agree on every word — on the class, on whether the word is legal, and on the text
/// (this checks the generator and the decoder's dispatch data, not the table: the table itself is checked
/// against nvdisasm by the golden, corpus and verify-isa comparisons).
fn agrees_with_table_interpreter(table: &sassport_isa::Table, w: u128, address: u64) -> Result<(), TestCaseError> {
    let decoded = decode(Word(w));
    let class = decoded.map(|i| i.class()).map_err(|e| e.class);
    let interpreted_class = sassport_isa::eval::classify(table, w).map(|c| c.name.as_str());
    let our_class = match class {
        Ok(c) | Err(Some(c)) => Some(c.name()),
        Err(None) => None,
    };
    prop_assert_eq!(our_class, interpreted_class, "word {:#034x}", w);
    let ours = decoded.map(|i| i.text(address, TargetStyle::Absolute));
    let interpreted = sassport_isa::eval::format_word(table, w, address);
    match (&ours, &interpreted) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "word {:#034x}", w),
        (Err(_), Err(_)) => {}
        _ => prop_assert!(false, "word {:#034x}: generated {:?}, interpreter {:?}", w, ours, interpreted),
    }
    Ok(())
}

/// Words whose opcode key is one the table uses, with every other bit random: they reach the dispatch of
/// each key (shared keys' fixed-bit discrimination included) far more often than uniform words, which
/// mostly hit unused keys.
fn used_key_words() -> impl Strategy<Value = u128> {
    let keys: Vec<u16> = {
        let mut k: Vec<u16> = TABLE.classes.iter().map(|c| c.opcode).collect();
        k.sort_unstable();
        k.dedup();
        k
    };
    (0..keys.len(), any::<u128>()).prop_map(move |(i, noise)| {
        let key = u128::from(keys[i]);
        let opcode = ((key >> 12) << 91) | (key & 0xfff);
        (noise & !((1u128 << 91) | 0xfff)) | opcode
    })
}

/// Words shaped for one print variant of one class: random bits under the class's fixed bits and the
/// variant's `when` bits, so that every variant (IMAD's `RZ, <power of two>` forms included) is reached,
/// not only the ones random bits or golden words happen to select.
fn variant_words() -> impl Strategy<Value = u128> {
    let shapes: Vec<(u128, u128)> = TABLE
        .classes
        .iter()
        .flat_map(|c| {
            c.variants.iter().map(move |v| {
                let mask = c.fixed.mask | v.when.mask;
                (mask, (c.fixed.value & c.fixed.mask) | (v.when.value & v.when.mask & !c.fixed.mask))
            })
        })
        .collect();
    (0..shapes.len(), any::<u128>()).prop_map(move |(i, noise)| {
        let (mask, value) = shapes[i];
        (noise & !mask) | value
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn generated_decoder_matches_the_table_interpreter_on_every_variant(w in variant_words(), address in 0u64..0x10_0000) {
        agrees_with_table_interpreter(&TABLE, w, address & !0xf)?;
    }

    #[test]
    fn generated_decoder_matches_the_table_interpreter(w in near_golden(), address in 0u64..0x10_0000) {
        agrees_with_table_interpreter(&TABLE, w, address & !0xf)?;
    }

    #[test]
    fn generated_decoder_matches_the_table_interpreter_on_used_keys(w in used_key_words(), address in 0u64..0x10_0000) {
        agrees_with_table_interpreter(&TABLE, w, address & !0xf)?;
        check_word(w, address & !0xf)?;
    }
}

/// Words matching two classes of one opcode key at once (random bits outside both classes' fixed bits,
/// where those agree): the table's class order decides them, so they check that the decoder, which may
/// try a key's classes in another order, still decodes them as the table does.
fn words_two_classes_share() -> impl Strategy<Value = u128> {
    let mut shapes: Vec<(u128, u128)> = Vec::new();
    for (i, a) in TABLE.classes.iter().enumerate() {
        for b in TABLE.classes.iter().skip(i + 1).filter(|b| b.opcode == a.opcode) {
            let (fa, fb) = (a.fixed, b.fixed);
            if (fa.value ^ fb.value) & fa.mask & fb.mask == 0 {
                shapes.push((fa.mask | fb.mask, (fa.value & fa.mask) | (fb.value & fb.mask)));
            }
        }
    }
    assert!(!shapes.is_empty());
    (0..shapes.len(), any::<u128>()).prop_map(move |(i, noise)| {
        let (mask, value) = shapes[i];
        (noise & !mask) | value
    })
}

/// The variant the table prints `w` with: the first whose `when` it matches, the last taking the rest.
fn table_variant(class: &sassport_isa::Class, w: u128) -> usize {
    let last = class.variants.len() - 1;
    class.variants[..last].iter().position(|v| v.when.matches(w)).unwrap_or(last)
}

fn variant_agrees(w: u128) -> Result<(), TestCaseError> {
    if let Ok(inst) = decode(Word(w)) {
        let class = TABLE.classes.iter().find(|c| c.name == inst.class().name());
        prop_assert!(class.is_some(), "class {} not in the table", inst.class().name());
        if let Some(class) = class {
            prop_assert_eq!(usize::from(inst.variant()), table_variant(class, w), "word {:#034x}", w);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn generated_decoder_matches_the_table_interpreter_where_classes_share_words(
        w in words_two_classes_share(),
        address in 0u64..0x10_0000,
    ) {
        agrees_with_table_interpreter(&TABLE, w, address & !0xf)?;
    }

    /// `Instruction::variant` chooses the variant when asked (decoding does not): it must be the table's.
    #[test]
    fn variant_is_the_tables_on_every_variant(w in variant_words()) {
        variant_agrees(w)?;
    }

    #[test]
    fn variant_is_the_tables_near_real_instructions(w in near_golden()) {
        variant_agrees(w)?;
    }
}
