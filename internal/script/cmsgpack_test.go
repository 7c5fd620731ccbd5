package script

import "testing"

const hexOf = `local function hex(s) local h = "" for i = 1, #s do h = h .. string.format("%02x", string.byte(s, i)) end return h end
`

// TestCmsgpack runs the cmsgpack cases of Redis's scripting suite.
func TestCmsgpack(t *testing.T) {
	e := New(nil)
	cases := []struct{ body, want string }{
		{hexOf + "return hex(cmsgpack.pack(0.1))", "cb3fb999999999999a"},
		{hexOf + "return hex(cmsgpack.pack(-1099511627776))", "d3ffffff0000000000"},
		{hexOf + "return hex(cmsgpack.pack(1, 200, 70000, -5, -100, 1.5, 'ab', true, false, {}, {1, 2}, {a=1}))",
			"01" + "ccc8" + "ce00011170" + "fb" + "d09c" + "ca3fc00000" + "a26162" + "c3" + "c2" + "90" + "920102" + "81a16101"},
		{`local str_lt_32 = string.rep("x", 30)
		local str_lt_255 = string.rep("x", 250)
		local str_lt_65535 = string.rep("x", 65530)
		local str_long = string.rep("x", 100000)
		local array_big = {}
		for i=1, 100000 do array_big[i] = i end
		local map_big = {}
		for i=1, 100000 do map_big[tostring(i)] = i end
		local some_map = {s1=str_lt_32, s2=str_lt_255, s3=str_lt_65535, s4=str_long, d1=0.1, i1=1, i2=250,
			i3=65530, i4=100000, i5=2^40, i6=-1, i7=-120, i8=-32000, i9=-100000, i10=-3147483648,
			a1={1, 2, 3, 4, 5}, a2={1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, a3=array_big,
			m1={a=1, b=2}, m2=map_big, b1=false, b2=true, n=nil}
		local decoded = cmsgpack.unpack(cmsgpack.pack(some_map))
		for k, v in pairs(some_map) do
			if type(v) ~= 'table' then assert(decoded[k] == v, k) end
		end
		assert(#decoded.a3 == 100000 and decoded.a3[99999] == 99999)
		assert(decoded.m2['777'] == 777)
		local offset, decoded_one = cmsgpack.unpack_one(cmsgpack.pack(some_map), 0)
		assert(offset == -1 and decoded_one.s4 == str_long)
		local encoded_multiple = cmsgpack.pack(str_lt_32, str_lt_255, str_lt_65535, str_long)
		local offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, 0)
		assert(obj == str_lt_32)
		offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
		assert(obj == str_lt_255)
		offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
		assert(obj == str_lt_65535)
		offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
		assert(obj == str_long)
		assert(offset == -1)
		return 'ok'`, "ok"},
		{hexOf + `local a = {x=nil,y=5}
		local b = {x=a}
		a['x'] = b
		local encoded = cmsgpack.pack(a)
		local re = cmsgpack.unpack(encoded)
		assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.y == re.y)
		assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x)
		assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x == nil)
		return hex(encoded)`,
			"82a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a178c0"},
		{"return {cmsgpack.unpack(cmsgpack.pack(1, 'two', 3))}", "[1 two 3]"},
		{"return cmsgpack.unpack('\\205')", "ERR user_script:1: Missing bytes in input. script: " + SHA1([]byte("return cmsgpack.unpack('\\205')")) + ", on @user_script:1."},
		{"return cmsgpack.unpack('\\193')", "ERR user_script:1: Bad data format in input. script: " + SHA1([]byte("return cmsgpack.unpack('\\193')")) + ", on @user_script:1."},
	}
	for _, c := range cases {
		if got := render(eval(t, e, c.body)); got != c.want {
			t.Errorf("%.60s:\n got %s\nwant %s", c.body, got, c.want)
		}
	}
}
