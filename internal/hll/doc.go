// Package hll is Redis's HyperLogLog as a byte string: the representation
// PFADD, PFCOUNT and PFMERGE keep in a string value, so that the bytes GET
// returns and SET accepts are the ones a Redis server reads and writes.
//
// # Representation
//
// A value starts with a 16-byte header: the magic "HYLL", one encoding
// byte (0 dense, 1 sparse), three unused bytes and the cached cardinality
// as 8 bytes little endian, whose top bit set means "not valid, compute
// again". 16384 registers of 6 bits follow, in one of two encodings:
//
//   - dense: 12288 bytes, register i at bit i*6 counted from the least
//     significant bit of the first byte;
//   - sparse: a sequence of opcodes, each covering a run of registers:
//     ZERO 00xxxxxx (1 to 64 zero registers), XZERO 01xxxxxx yyyyyyyy (1
//     to 16384 zero registers) and VAL 1vvvvvxx (1 to 4 registers of value
//     1 to 32). A new value is sparse; it turns dense for good when a
//     register needs a value above 32 or its length would exceed the
//     sparse limit (hll-sparse-max-bytes).
//
// An element is hashed with MurmurHash64A (seed 0xadc83b19): the low 14
// bits choose the register, and the position of the first set bit of the
// remaining 50 (counted from 1, at most 51) is the candidate value; a
// register keeps the largest candidate it has seen.
//
// Updates of a sparse value split the opcode covering the register and
// merge equal neighbouring VAL opcodes exactly as Redis does, so the same
// additions give the same bytes.
//
// # Estimate
//
// The cardinality is Ertl's improved raw estimator over the histogram of
// register values: z = m·τ(1 − C[51]/m), then for k from 50 down to 1
// z = (z + C[k])/2, then z += m·σ(C[0]/m), and the estimate is
// round(α∞·m²/z) with α∞ = 1/(2·ln 2) and m = 16384. σ and τ are the
// series of that estimator, summed until they stop changing.
//
// # Validity
//
// A string is a HyperLogLog when it is at least a header long, has the
// magic, a known encoding, and (dense) exactly the dense length; anything
// else is ErrInvalid. A sparse value whose opcodes do not cover exactly
// 16384 registers is found when it is read or updated: ErrCorrupt.
package hll
