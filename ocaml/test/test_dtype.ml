(* Tests of Nx_array.Dtype: every example its documentation gives, and
   every fact, store and printed value compared with the C library called
   directly (test_stubs.c). Prints "N passed, N failed"; exits 1 on failure. *)

module D = Nx_array.Dtype

(* ---- The C library, raw ---- *)

external t_count : unit -> int = "t_count"
external t_bits : int -> int = "t_bits"
external t_kind : int -> int = "t_kind"
external t_name : int -> string = "t_name"
external t_of_name : string -> int = "t_of_name"
external t_exact : int -> int -> int = "t_exact"
external t_bytes : int -> int64 -> int * int64 = "t_bytes"
external t_float_format : int -> int * int array * float array = "t_float_format"
external t_extreme : int -> bool -> int * string = "t_extreme"
external t_store : int -> float -> int * string = "t_store"
external t_load : int -> string -> int * float = "t_load"
external t_is_value : int -> float -> int = "t_is_value"
external t_format : int -> string -> int * string = "t_format"
external t_format_f64 : int -> float -> int * string = "t_format_f64"
external t_convert :
  int -> ('a, 'b, 'c) Bigarray.Array1.t -> int -> ('d, 'e, 'f) Bigarray.Array1.t -> int -> int
  = "t_convert"

open Harness

let pp_to_string dt v = Format.asprintf "%a" (D.pp_value dt) v

(* ---- The test's own view of values: by width, as documented ---- *)

type 'v vt =
  | F : float vt
  | I : int vt
  | I32 : int32 vt
  | I64 : int64 vt
  | C : Complex.t vt
  | B : bool vt

let vt : type v s. (v, s) D.t -> v vt = function
  | D.Float64 -> F | D.Float32 -> F | D.Float16 -> F | D.Bfloat16 -> F
  | D.Float8_e4m3fn -> F | D.Float8_e5m2 -> F | D.Float4_e2m1fn -> F
  | D.Int64 -> I64 | D.Uint64 -> I64 | D.Int32 -> I32 | D.Uint32 -> I32
  | D.Int16 -> I | D.Uint16 -> I | D.Int8 -> I | D.Uint8 -> I | D.Int4 -> I
  | D.Uint4 -> I | D.Complex128 -> C | D.Complex64 -> C | D.Bool -> B
  | D.Bit -> B

(* As documented: a dtype's name is its constructor name in lower case. *)
let ctor_name (D.Any dt) =
  match dt with
  | D.Float64 -> "Float64" | D.Float32 -> "Float32" | D.Float16 -> "Float16"
  | D.Bfloat16 -> "Bfloat16" | D.Float8_e4m3fn -> "Float8_e4m3fn"
  | D.Float8_e5m2 -> "Float8_e5m2" | D.Float4_e2m1fn -> "Float4_e2m1fn"
  | D.Int64 -> "Int64" | D.Uint64 -> "Uint64" | D.Int32 -> "Int32"
  | D.Uint32 -> "Uint32" | D.Int16 -> "Int16" | D.Uint16 -> "Uint16"
  | D.Int8 -> "Int8" | D.Uint8 -> "Uint8" | D.Int4 -> "Int4"
  | D.Uint4 -> "Uint4" | D.Complex128 -> "Complex128"
  | D.Complex64 -> "Complex64" | D.Bool -> "Bool" | D.Bit -> "Bit"

let veq : type v. v vt -> v -> v -> bool =
 fun t a b ->
  match t with
  | F -> same_float a b
  | C -> same_float a.re b.re && same_float a.im b.im
  | I -> a = b | I32 -> Int32.equal a b | I64 -> Int64.equal a b
  | B -> a = b

let show : type v. v vt -> v -> string =
 fun t v ->
  match t with
  | F -> show_float v
  | C -> Printf.sprintf "{re=%h; im=%h}" v.re v.im
  | I -> string_of_int v | I32 -> Int32.to_string v | I64 -> Int64.to_string v
  | B -> string_of_bool v

(* An element's bytes read as ABI.md lays them out, independently of the
   binding: little-endian, sub-byte elements in the low bits, signed kinds
   sign-extended, floats through nx_load_f64. *)
let decode : type v s. (v, s) D.t -> string -> v =
 fun dt b ->
  let c = D.code dt in
  let bits = t_bits c in
  let raw () =
    let u = ref 0L in
    for i = min 8 (String.length b) - 1 downto 0 do
      u := Int64.logor (Int64.shift_left !u 8) (Int64.of_int (Char.code b.[i]))
    done;
    if bits >= 64 then !u
    else
      let u = Int64.logand !u (Int64.pred (Int64.shift_left 1L bits)) in
      if t_kind c = 2 && Int64.logand u (Int64.shift_left 1L (bits - 1)) <> 0L
      then Int64.logor u (Int64.shift_left (-1L) bits)
      else u
  in
  match vt dt with
  | F ->
      let st, x = t_load c b in
      if st <> 0 then failwith "nx_load_f64 failed";
      x
  | I -> Int64.to_int (raw ())
  | I32 -> Int64.to_int32 (raw ())
  | I64 -> raw ()
  | B -> raw () <> 0L
  | C ->
      if bits = 128 then
        { re = Int64.float_of_bits (String.get_int64_le b 0);
          im = Int64.float_of_bits (String.get_int64_le b 8) }
      else
        { re = Int32.float_of_bits (String.get_int32_le b 0);
          im = Int32.float_of_bits (String.get_int32_le b 4) }

let store dt x =
  let st, b = t_store (D.code dt) x in
  if st <> 0 then failwith "nx_store_f64 failed";
  b

(* Every element of a format of at most 16 bits, as bytes; booleans only
   their two values. *)
let patterns : type v s. (v, s) D.t -> string list = fun dt ->
  let bits = D.bits dt in
  let n =
    match D.kind dt with D.Boolean -> 2 | _ -> 1 lsl bits
  in
  List.init n (fun i ->
      if bits <= 8 then String.make 1 (Char.chr i)
      else
        let s = Bytes.create 2 in
        Bytes.set_uint16_le s 0 i;
        Bytes.to_string s)

let small = List.filter (fun (D.Any dt) -> D.bits dt <= 16) D.all

let anys = Array.of_list D.all

(* ---- The documentation's examples ---- *)

let documented_examples () =
  let open D in
  check "of_float Float16 0.1 = 0x1.998p-4" (same_float (of_float Float16 0.1) 0x1.998p-4);
  check "of_float Float16 65519. = 65504." (same_float (of_float Float16 65519.) 65504.);
  check "of_float Float16 65520. = infinity" (same_float (of_float Float16 65520.) infinity);
  check "of_float Float8_e5m2 61440. = infinity"
    (same_float (of_float Float8_e5m2 61440.) infinity);
  check "Float8_e5m2 largest finite 57344"
    ((float_format Float8_e5m2).max_finite = 57344.
    && same_float (of_float Float8_e5m2 57344.) 57344.);
  check "Float8_e4m3fn largest finite 448" ((float_format Float8_e4m3fn).max_finite = 448.);
  check "Float8_e4m3fn has no infinity: inf saturates to 448"
    (of_float Float8_e4m3fn infinity = 448. && of_float Float8_e4m3fn neg_infinity = -448.);
  check "Float8_e4m3fn NaN stores as NaN" (Float.is_nan (of_float Float8_e4m3fn nan));
  check "Float4_e2m1fn NaN stores as +0."
    (same_float (of_float Float4_e2m1fn nan) 0. && same_float (of_float Float4_e2m1fn (-.nan)) 0.);
  check "Float4_e2m1fn saturates to ±6"
    (of_float Float4_e2m1fn 100. = 6. && of_float Float4_e2m1fn neg_infinity = -6.);
  let e2m1 =
    List.sort_uniq compare
      (List.map (fun b -> decode Float4_e2m1fn b) (patterns Float4_e2m1fn))
  in
  check "Float4_e2m1fn values are ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}"
    (e2m1 = [ -6.; -4.; -3.; -2.; -1.5; -1.; -0.5; -0.; 0.5; 1.; 1.5; 2.; 3.; 4.; 6. ]
    && List.for_all (fun x -> of_float Float4_e2m1fn x = x) e2m1);
  check "of_float keeps the NaN's sign"
    (Float.sign_bit (of_float Float16 (-.nan)) && Float.is_nan (of_float Float16 (-.nan))
    && not (Float.sign_bit (of_float Bfloat16 nan)));
  (* Integers truncate toward zero and saturate; NaN stores as 0. *)
  check "of_float Int8 truncates" (of_float Int8 (-3.7) = -3 && of_float Int8 3.7 = 3);
  check "of_float Int8 saturates" (of_float Int8 1000. = 127 && of_float Int8 neg_infinity = -128);
  check "of_float Uint8 saturates" (of_float Uint8 (-5.) = 0 && of_float Uint8 300. = 255);
  check "of_float Int4 / Uint4 saturate" (of_float Int4 9. = 7 && of_float Int4 (-9.) = -8
                                          && of_float Uint4 99. = 15);
  check "of_float integer NaN = 0"
    (of_float Int16 nan = 0 && of_float Uint64 nan = 0L && of_float Int32 nan = 0l);
  check "of_float Uint32 4294967295. = -1l (its bits)" (of_float Uint32 4294967295. = -1l);
  check "of_float Uint64 1e30 = -1L (saturated, its bits)" (of_float Uint64 1e30 = -1L);
  check "of_float Int64 -1e30 = min_int64" (of_float Int64 (-1e30) = Int64.min_int);
  check "of_float Bool x <> 0." (of_float Bool 0. = false && of_float Bool (-0.) = false
                                 && of_float Bool nan = true && of_float Bit 0.5 = true);
  let z = of_float Complex64 0.1 in
  check "of_float Complex64 0.1 = {re = Float32 0.1; im = 0.}"
    (same_float z.re (of_float Float32 0.1) && same_float z.im 0.);
  let z = of_float Complex128 (-2.5) in
  check "of_float Complex128 -2.5" (same_float z.re (-2.5) && same_float z.im 0.);
  (* Facts *)
  check "bits: Bit 1, 4-bit 4, Bool 8, Complex128 128"
    (bits Bit = 1 && bits Int4 = 4 && bits Uint4 = 4 && bits Float4_e2m1fn = 4
    && bits Bool = 8 && bits Complex128 = 128);
  check "name Float32 = \"float32\"" (name Float32 = "float32");
  check "name Float4_e2m1fn = \"float4_e2m1fn\"" (name Float4_e2m1fn = "float4_e2m1fn");
  check "code Float32 = NX_FLOAT32 (= t_of_name \"float32\")" (code Float32 = t_of_name "float32");
  check "pp formats the name" (Format.asprintf "%a" pp Float8_e5m2 = "float8_e5m2");
  check "of_code None outside 0..20"
    (of_code (-1) = None && of_code (List.length all) = None && of_code max_int = None
    && of_code min_int = None);
  check "of_name unknown" (of_name "Float32" = None && of_name "" = None
                           && of_name "float32\000" = None && of_name "float" = None);
  (* min/max *)
  let inf_formats = [ Any Float64; Any Float32; Any Float16; Any Bfloat16; Any Float8_e5m2 ] in
  check "min/max of float formats with infinities are ∓infinity"
    (List.for_all
       (fun (Any dt) ->
         match kind dt with
         | Float -> min_value dt = neg_infinity && max_value dt = infinity
         | _ -> false)
       inf_formats);
  check "min/max Float8_e4m3fn ±448"
    (min_value Float8_e4m3fn = -448. && max_value Float8_e4m3fn = 448.);
  check "min/max Float4_e2m1fn ±6" (min_value Float4_e2m1fn = -6. && max_value Float4_e2m1fn = 6.);
  check "min/max booleans" (min_value Bool = false && max_value Bool = true
                            && min_value Bit = false && max_value Bit = true);
  check "max_value Uint4 15, Uint8 255, Uint16 65535"
    (max_value Uint4 = 15 && max_value Uint8 = 255 && max_value Uint16 = 65535);
  check "max_value Uint32 -1l, Uint64 -1L" (max_value Uint32 = -1l && max_value Uint64 = -1L);
  check "min/max raise for complex"
    (raises_invalid (fun () -> min_value Complex64) && raises_invalid (fun () -> max_value Complex128)
    && raises_invalid (fun () -> min_value Complex128) && raises_invalid (fun () -> max_value Complex64));
  (* exact *)
  check "exact int8 into bfloat16" (exact Int8 Bfloat16);
  check "exact int16 into float32" (exact Int16 Float32);
  check "exact int32 into float64" (exact Int32 Float64);
  check "exact int64 into no float"
    (List.for_all (fun (Any b) -> not (is Float b && exact Int64 b)) all);
  check "exact float16 and bfloat16 into float32" (exact Float16 Float32 && exact Bfloat16 Float32);
  check "exact 8-bit floats into float16" (exact Float8_e4m3fn Float16 && exact Float8_e5m2 Float16);
  check "exact: a boolean into every dtype, only a boolean into one"
    (List.for_all (fun (Any b) -> exact Bool b && exact Bit b) all
    && List.for_all (fun (Any a) -> (exact a Bool || exact a Bit) = is Boolean a) all);
  check "exact: complex only into complex"
    (List.for_all (fun (Any b) -> not (exact Complex64 b) || is Complex b) all
    && List.for_all (fun (Any b) -> not (exact Complex128 b) || is Complex b) all);
  check "exact: a real into a complex whose component it is exact into"
    (exact Float32 Complex64 && exact Int16 Complex64 && not (exact Float64 Complex64)
    && exact Float64 Complex128);
  (
      check "pp_value Float32 (of_float Float32 0.1) = 0.1"
        (pp_to_string Float32 (of_float Float32 0.1) = "0.1");
      check "pp_value Float16 65504. = 65500" (pp_to_string Float16 65504. = "65500");
      check "pp_value Float8_e4m3fn 448. = 450" (pp_to_string Float8_e4m3fn 448. = "450");
      check "pp_value Float16 0.015625 = 0.01563" (pp_to_string Float16 0.015625 = "0.01563");
      check "pp_value 1.59e+29"
        (pp_to_string Float64 1.59e29 = "1.59e+29"
        && pp_to_string Float32 (of_float Float32 1.59e29) = "1.59e+29");
      check "pp_value positional from 1e-4 below 1e16"
        (pp_to_string Float64 1e-4 = "0.0001" && pp_to_string Float64 1e-5 = "1e-05"
        && pp_to_string Float64 1e16 = "1e+16" && pp_to_string Float64 1e15 = "1000000000000000");
      check "pp_value nan, inf, -inf"
        (pp_to_string Float16 nan = "nan" && pp_to_string Float64 infinity = "inf"
        && pp_to_string Bfloat16 neg_infinity = "-inf");
      check "pp_value Complex128 0.5-2i"
        (pp_to_string Complex128 { re = 0.5; im = -2. } = "0.5-2i"
        && pp_to_string Complex64 { re = 0.5; im = -2. } = "0.5-2i");
      check "pp_value Uint32 -1l = 4294967295" (pp_to_string Uint32 (-1l) = "4294967295");
      check "pp_value Uint64 -1L = 18446744073709551615"
        (pp_to_string Uint64 (-1L) = "18446744073709551615");
      check "pp_value Int32 -1l = -1" (pp_to_string Int32 (-1l) = "-1");
      check "pp_value booleans" (pp_to_string Bool true = "true" && pp_to_string Bit false = "false");
      check "pp_value Float32 0.1 raises Invalid_argument"
        (raises_invalid (fun () -> pp_to_string Float32 0.1));
      check "pp_value Complex64 with a non-binary32 component raises"
        (raises_invalid (fun () -> pp_to_string Complex64 { re = 0.5; im = 0.1 })
        && raises_invalid (fun () -> pp_to_string Complex64 { re = 0.1; im = 0. }));
      check "pp_value of an int a store refuses raises"
        (raises_invalid (fun () -> pp_to_string Int8 128)
        && raises_invalid (fun () -> pp_to_string Uint4 (-1))))

(* ---- all, codes, names, kinds, equality ---- *)

let kind_code : type v. v D.kind -> int = function
  | D.Float -> 0 | D.Complex -> 1 | D.Signed -> 2 | D.Unsigned -> 3 | D.Boolean -> 4

let table () =
  check "all has NX_DTYPE_COUNT dtypes" (List.length D.all = t_count ());
  List.iteri
    (fun i (D.Any dt as a) ->
      let n = ctor_name a in
      let c = D.code dt in
      check (n ^ ": index in all = code") (c = i);
      (* The constructor order is the library's: code dt names the
         constructor's own dtype in C. *)
      check (n ^ ": C name of its code = its constructor name in lower case")
        (t_name c = String.lowercase_ascii n);
      check (n ^ ": name = C name") (D.name dt = t_name c);
      check (n ^ ": of_code") (match D.of_code c with Some (D.Any d) -> D.code d = c | None -> false);
      check (n ^ ": of_name") (match D.of_name (D.name dt) with
                               | Some (D.Any d) -> D.code d = c | None -> false);
      check (n ^ ": bits = C bits") (D.bits dt = t_bits c);
      check (n ^ ": kind = C kind") (kind_code (D.kind dt) = t_kind c);
      check (n ^ ": is") (
        D.is D.Float dt = (t_kind c = 0) && D.is D.Complex dt = (t_kind c = 1)
        && D.is D.Signed dt = (t_kind c = 2) && D.is D.Unsigned dt = (t_kind c = 3)
        && D.is D.Boolean dt = (t_kind c = 4));
      check (n ^ ": pp") (Format.asprintf "%a" D.pp dt = t_name c))
    D.all;
  check "of_code and of_name return the same any"
    (List.for_all (fun (D.Any dt) -> D.of_code (D.code dt) == D.of_name (D.name dt)) D.all);
  (* equal, equal_witness: every pair *)
  let pairs = List.concat_map (fun a -> List.map (fun b -> (a, b)) D.all) D.all in
  check_all "equal / equal_witness"
    (fun (D.Any a, D.Any b) ->
      let same = D.code a = D.code b in
      let w = match D.equal_witness a b with Some Type.Equal -> true | None -> false in
      if D.equal a b = same && w = same then None
      else Some (D.name a ^ " " ^ D.name b))
    pairs;
  (* A witness refines the type: a Float32 chosen at run time. *)
  (match D.of_name "float32" with
  | Some (D.Any dt) -> (
      match D.equal_witness dt D.Float32 with
      | Some Type.Equal -> check "equal_witness refines the value type" (D.of_float dt 0.5 +. 1. = 1.5)
      | None -> check "equal_witness float32" false)
  | None -> check "of_name float32" false);
  (* Matching kind learns the value type. *)
  check "kind refines the value type"
    (List.for_all
       (fun (D.Any dt) ->
         match D.kind dt with
         | D.Float -> Float.is_finite (D.of_float dt 2.5)
         | D.Complex -> (D.of_float dt 2.5).im = 0.
         | D.Boolean -> D.of_float dt 2.5
         | D.Signed | D.Unsigned -> true)
       D.all)

(* ---- Bigarray kinds ---- *)

type bk = K : ('v, 's) Bigarray.kind * string -> bk

let bigarray () =
  let open Bigarray in
  let kinds =
    [ K (Float16, "Float16"); K (Float32, "Float32"); K (Float64, "Float64");
      K (Int8_signed, "Int8_signed"); K (Int8_unsigned, "Int8_unsigned");
      K (Int16_signed, "Int16_signed"); K (Int16_unsigned, "Int16_unsigned");
      K (Int32, "Int32"); K (Int64, "Int64"); K (Int, "Int");
      K (Nativeint, "Nativeint"); K (Complex32, "Complex32");
      K (Complex64, "Complex64"); K (Char, "Char") ]
  in
  List.iter
    (fun (K (k, n)) ->
      match D.of_bigarray_kind k with
      | None -> check ("of_bigarray_kind " ^ n ^ " = None") (List.mem n [ "Char"; "Int"; "Nativeint" ])
      | Some dt ->
          check ("of_bigarray_kind " ^ n ^ " round-trips")
            (D.to_bigarray_kind dt = Some k
            && kind_size_in_bytes k = D.bytes dt 1))
    kinds;
  List.iter
    (fun (D.Any dt as a) ->
      let n = ctor_name a in
      let none = [ "Bfloat16"; "Float8_e4m3fn"; "Float8_e5m2"; "Float4_e2m1fn"; "Int4"; "Uint4";
                   "Uint32"; "Uint64"; "Bool"; "Bit" ] in
      match D.to_bigarray_kind dt with
      | None -> check ("to_bigarray_kind " ^ n ^ " = None") (List.mem n none)
      | Some k ->
          check ("to_bigarray_kind " ^ n ^ " round-trips")
            ((not (List.mem n none)) && D.of_bigarray_kind k = Some dt))
    D.all;
  check "Complex64's elements are complex32_elt"
    (D.to_bigarray_kind D.Complex64 = Some Complex32 && D.to_bigarray_kind D.Complex128 = Some Complex64)

(* ---- Facts against the C library ---- *)

let facts () =
  List.iter
    (fun (D.Any dt as a) ->
      let n = ctor_name a and c = D.code dt in
      let t = vt dt in
      (* float_format *)
      (match D.kind dt with
      | D.Float ->
          let st, i, f = t_float_format c in
          let ff = D.float_format dt in
          check (n ^ ": float_format = C")
            (st = 0 && ff.exponent_bits = i.(0) && ff.fraction_bits = i.(1)
            && ff.infinities = (i.(2) <> 0) && ff.nans = (i.(3) <> 0)
            && same_float ff.epsilon f.(0) && same_float ff.min_normal f.(1)
            && same_float ff.max_finite f.(2));
          check (n ^ ": epsilon = 2^-fraction_bits") (ff.epsilon = ldexp 1. (- ff.fraction_bits));
          check (n ^ ": of_float keeps max_finite and min_normal")
            (D.of_float dt ff.max_finite = ff.max_finite && D.of_float dt ff.min_normal = ff.min_normal)
      | _ -> check (n ^ ": C has no float_format") (let st, _, _ = t_float_format c in st = -4));
      (* min/max, zero/one *)
      (match D.kind dt with
      | D.Complex ->
          check (n ^ ": C min/max refuse complex")
            (fst (t_extreme c false) = -4 && fst (t_extreme c true) = -4)
      | _ ->
          let st0, lo = t_extreme c false and st1, hi = t_extreme c true in
          check (n ^ ": min_value = C") (st0 = 0 && veq t (D.min_value dt) (decode dt lo));
          check (n ^ ": max_value = C") (st1 = 0 && veq t (D.max_value dt) (decode dt hi)));
      check (n ^ ": zero = of_float 0.") (veq t (D.zero dt) (D.of_float dt 0.));
      check (n ^ ": one = of_float 1.") (veq t (D.one dt) (D.of_float dt 1.));
      (* bytes: ⌈n · bits / 8⌉ when it fits in an int *)
      let bits = D.bits dt in
      let expect k =
        let q = k / 8 and r = k mod 8 in
        let extra = ((r * bits) + 7) / 8 in
        if q > (max_int - extra) / bits then None else Some ((q * bits) + extra)
      in
      let counts = [ 0; 1; 2; 3; 7; 8; 9; 1000; 1 lsl 40; max_int / 16; max_int / 16 + 1;
                     max_int / 8; max_int / 8 + 1; max_int / 2; max_int / 2 + 1; max_int ] in
      check_all (n ^ ": bytes")
        (fun k ->
          let st, cb = t_bytes c (Int64.of_int k) in
          let got = match D.bytes dt k with b -> Some b | exception Invalid_argument _ -> None in
          let c_fits = st = 0 && Int64.compare cb (Int64.of_int max_int) <= 0 in
          if got = expect k && (got = None || c_fits && got = Some (Int64.to_int cb)) then None
          else Some (string_of_int k))
        counts;
      check (n ^ ": bytes of a negative count raises")
        (raises_invalid (fun () -> D.bytes dt (-1)) && raises_invalid (fun () -> D.bytes dt min_int));
      (* exact against C, every pair *)
      check_all (n ^ ": exact = C")
        (fun (D.Any b) -> if D.exact dt b = (t_exact c (D.code b) = 1) then None else Some (D.name b))
        D.all)
    D.all

(* holds: false exactly past the int range. *)
let holds () =
  List.iter
    (fun (D.Any dt as a) ->
      let n = ctor_name a in
      match vt dt with
      | I ->
          let lo = D.min_value dt and hi = D.max_value dt in
          check (n ^ ": holds at and past its range")
            (D.holds dt lo && D.holds dt hi && not (D.holds dt (lo - 1)) && not (D.holds dt (hi + 1))
            && D.holds dt 0 && not (D.holds dt max_int) && not (D.holds dt min_int));
          check (n ^ ": range = the C library's stores of ±1e9")
            (lo = decode dt (store dt (-1e9)) && hi = decode dt (store dt 1e9))
      | F -> check (n ^ ": holds every float") (D.holds dt nan && D.holds dt 0.1 && D.holds dt infinity)
      | I32 -> check (n ^ ": holds every int32") (D.holds dt Int32.min_int && D.holds dt Int32.max_int)
      | I64 -> check (n ^ ": holds every int64") (D.holds dt Int64.min_int && D.holds dt Int64.max_int)
      | C -> check (n ^ ": holds every complex") (D.holds dt { re = 0.1; im = nan })
      | B -> check (n ^ ": holds both booleans") (D.holds dt true && D.holds dt false))
    D.all

(* exact, from its definition: every value of a (≤16 bits, all listed)
   stores into b as the same number, the same infinity or a NaN. *)
let exact_definition () =
  let as_float : type v s. (v, s) D.t -> v -> float * float =
   fun dt v ->
    match vt dt with
    | F -> (v, 0.) | I -> (float_of_int v, 0.) | I32 -> (Int32.to_float v, 0.)
    | I64 -> (Int64.to_float v, 0.) | C -> (v.re, v.im)
    | B -> ((if v then 1. else 0.), 0.)
  in
  List.iter
    (fun (D.Any a) ->
      let values = List.map (fun b -> fst (as_float a (decode a b))) (patterns a) in
      check_all ("exact from " ^ D.name a ^ " by its definition")
        (fun (D.Any b) ->
          let keeps x =
            let y, im = as_float b (D.of_float b x) in
            im = 0. && if Float.is_nan x then Float.is_nan y else y = x
          in
          let def = List.for_all keeps values in
          if def = D.exact a b then None else Some (D.name b))
        D.all)
    small

(* ---- Stores against the C library ---- *)

(* The inputs where a store decides: every value of a format (≤16 bits),
   the midpoints between neighbours, the next half step past the largest
   finite value, and the doubles either side of each. *)
let store_inputs : type v s. (v, s) D.t -> float list = fun dt ->
  let values =
    List.sort_uniq compare
      (List.filter_map
         (fun b ->
           let x = snd (t_load (D.code dt) b) in
           if Float.is_nan x then None else Some x)
         (patterns dt))
  in
  let rec mids = function
    | a :: (b :: _ as rest) when Float.is_finite a && Float.is_finite b ->
        ((a /. 2.) +. (b /. 2.)) :: mids rest
    | _ :: rest -> mids rest
    | [] -> []
  in
  let finite = List.filter Float.is_finite values in
  let past =
    match List.rev finite with
    | hi :: prev :: _ -> [ hi +. ((hi -. prev) /. 2.); -.(hi +. ((hi -. prev) /. 2.)) ]
    | _ -> []
  in
  let tweak = function
    | x when D.is D.Float dt -> [ x; Float.succ x; Float.pred x ]
    | x -> [ x; x +. 0.5; x -. 0.5; x +. 0.999; x -. 0.999 ]
  in
  nan :: -.nan :: List.concat_map tweak (values @ mids values @ past)

let stores () =
  let check_store dt name xs =
    let t = vt dt in
    check_all name
      (fun x ->
        let want = decode dt (store dt x) in
        let got = D.of_float dt x in
        if veq t got want then None
        else Some (Printf.sprintf "of_float %s %h = %s, C %s" (D.name dt) x (show t got) (show t want)))
      xs
  in
  List.iter
    (fun (D.Any dt) ->
      let ps = patterns dt in
      check_store dt ("of_float of every " ^ D.name dt ^ " value and its neighbours = C")
        (store_inputs dt);
      (* Values store to themselves. *)
      let t = vt dt in
      check_all ("every " ^ D.name dt ^ " value stores to itself")
        (fun b ->
          let v = decode dt b in
          let x = snd (t_load (D.code dt) b) in
          if Float.is_nan x || veq t (D.of_float dt x) v then None else Some (show_float x))
        ps)
    small;
  (* Every dtype: random doubles of every magnitude, and special values. *)
  Random.init 20261201;
  let specials =
    [ 0.; -0.; 0.5; -0.5; 1.; -1.; 1.5; 2.5; -2.5; 127.5; 128.; 255.5; 256.; 32767.5; 65535.5;
      2147483647.5; 2147483648.; 4294967295.; 4294967296.; 9.2233720368547758e18;
      1.8446744073709552e19; -9.2233720368547758e18; -9.3e18; infinity; neg_infinity; nan; -.nan;
      Int64.float_of_bits 0x7FF0000000000001L; Int64.float_of_bits 0xFFF4000000000000L;
      Int64.float_of_bits 0x7FF8DEADBEEF0001L; 0x1p-1074; 0x1p-1022; max_float; -.max_float;
      0x1p-149; 0x1p-150; 0x1.8p-150; 0x1p-126; 0x1p-24; 0x1p-25; 0x1.8p-25; 0x1p-14 ]
  in
  let random =
    List.init 20000 (fun _ -> Int64.float_of_bits (Random.bits64 ()))
    @ List.init 20000 (fun _ -> ldexp (Random.float 2. -. 1.) (Random.int 140 - 70))
  in
  List.iter
    (fun (D.Any dt) -> check_store dt ("of_float " ^ D.name dt ^ " of specials and random doubles = C")
                          (specials @ random))
    D.all

(* ---- Printing against the C library ---- *)

let printing () =
  (* Every value of every format of at most 16 bits. *)
  List.iter
    (fun (D.Any dt) ->
      let c = D.code dt and t = vt dt in
      check_all ("pp_value of every " ^ D.name dt ^ " value = C nx_format")
        (fun b ->
          let v = decode dt b in
          let st, want = t_format c b in
          let got = try pp_to_string dt v with Invalid_argument m -> "Invalid_argument " ^ m in
          if st >= 0 && got = want then None
          else Some (Printf.sprintf "%s: %S, C %S (%d)" (show t v) got want st))
        (patterns dt))
    small;
  (* The wider formats: stored random doubles and random bits. *)
  Random.init 7;
  let xs =
    List.init 5000 (fun _ -> Int64.float_of_bits (Random.bits64 ()))
    @ List.init 5000 (fun _ -> ldexp (Random.float 2. -. 1.) (Random.int 120 - 60))
    @ [ 0.; -0.; nan; -.nan; infinity; neg_infinity; 1e16; 1e-4; 9.999999999999999e15; 0.1 ]
  in
  List.iter
    (fun (D.Any dt) ->
      let c = D.code dt in
      check_all ("pp_value " ^ D.name dt ^ " of stores = C nx_format")
        (fun x ->
          let b = store dt x in
          let v = D.of_float dt x in
          let st, want = t_format c b in
          let got = pp_to_string dt v in
          if st >= 0 && got = want then None else Some (Printf.sprintf "%h: %S, C %S" x got want))
        xs)
    D.all;
  let bits_cases dt =
    let c = D.code dt in
    check_all ("pp_value " ^ D.name dt ^ " of random bits = C nx_format")
      (fun r ->
        let e = Bytes.create 8 in
        Bytes.set_int64_le e 0 r;
        let e = Bytes.sub_string e 0 (D.bytes dt 1) in
        let v = decode dt e in
        let st, want = t_format c e in
        let got = pp_to_string dt v in
        if st >= 0 && got = want then None else Some (Printf.sprintf "%Lx: %S, C %S" r got want))
      (List.init 2000 (fun _ -> Random.bits64 ()) @ [ 0L; -1L; Int64.min_int; Int64.max_int ])
  in
  bits_cases D.Int64; bits_cases D.Uint64; bits_cases D.Int32; bits_cases D.Uint32;
  (* pp_value refuses exactly the finite floats that are not values. *)
  List.iter
    (fun (D.Any dt) ->
      let c = D.code dt in
      match D.kind dt with
      | D.Float ->
          check_all ("pp_value " ^ D.name dt ^ " raises iff not a value")
            (fun x ->
              let raised = raises_invalid (fun () -> pp_to_string dt x) in
              let st, _ = t_format_f64 c x in
              if raised = (t_is_value c x = 0) && raised = (st = -5) then None else Some (show_float x))
            xs
      | D.Complex ->
          check_all ("pp_value " ^ D.name dt ^ " raises iff a component is not a value")
            (fun x ->
              let z = { Complex.re = 0.5; im = x } and z' = { Complex.re = x; im = -1. } in
              let bad = t_is_value c x = 0 in
              if raises_invalid (fun () -> pp_to_string dt z) = bad
                 && raises_invalid (fun () -> pp_to_string dt z') = bad
              then None else Some (show_float x))
            xs
      | _ -> ())
    D.all;
  check "pp_value Complex128 signs and NaN"
    (pp_to_string D.Complex128 { re = 1.; im = infinity } = "1+infi"
    && pp_to_string D.Complex128 { re = 0.; im = -0. } = "0-0i"
    && pp_to_string D.Complex64 { re = 0.; im = nan } = "0+nani")

(* ---- Bigarrays through nx_convert ---- *)

let convert () =
  let open Bigarray in
  Random.init 11;
  let xs =
    Array.of_list
      ([ 0.; -0.; 0.1; 65504.; 65519.; 65520.; -65520.; infinity; neg_infinity; nan; -.nan;
         Int64.float_of_bits 0x7FF0000000000001L; Int64.float_of_bits 0x7FF4000000000000L;
         0x1p-24; 0x1p-25; 0x1.8p-25; 0x1p-14; 0x1.ffcp-15 ]
      @ List.init 4000 (fun _ -> ldexp (Random.float 2. -. 1.) (Random.int 50 - 30))
      @ List.init 4000 (fun _ -> Int64.float_of_bits (Random.bits64 ())))
  in
  let n = Array.length xs in
  let src = Array1.of_array float64 c_layout xs in
  let h = Array1.create float16 c_layout n in
  let back = Array1.create float64 c_layout n in
  (* Float64 -> Float16 through the library: OCaml reads the bytes as
     of_float's values (NaNs as NaNs of their sign: OCaml's own reader). *)
  check "nx_convert float64 -> float16" (t_convert 0 src 2 h n = 0);
  check_all "Float16 bigarray converted by nx_convert = of_float of its elements"
    (fun i ->
      let want = D.of_float D.Float16 xs.(i) and got = h.{i} in
      if same_float got want
         || Float.is_nan want && Float.is_nan got && Float.sign_bit want = Float.sign_bit got
      then None
      else Some (Printf.sprintf "%h: %h, of_float %h" xs.(i) got want))
    (List.init n Fun.id);
  (* The same bytes read back by the library: bit for bit, NaNs included. *)
  check "nx_convert float16 -> float64" (t_convert 2 h 0 back n = 0);
  check_all "Float16 bytes read by nx_convert = of_float, bit for bit"
    (fun i ->
      let want = D.of_float D.Float16 xs.(i) in
      if same_float back.{i} want then None else Some (Printf.sprintf "%h" xs.(i)))
    (List.init n Fun.id);
  (* A Float16 bigarray written by OCaml: its bytes, converted by the
     library, are its elements' values. *)
  let o = Array1.create float16 c_layout n in
  Array.iteri (fun i x -> o.{i} <- x) xs;
  check "nx_convert OCaml's float16 -> float64" (t_convert 2 o 0 back n = 0);
  check_all "OCaml-written Float16 bytes through nx_convert = of_float of its elements"
    (fun i ->
      let e = o.{i} in
      let want = D.of_float D.Float16 e in
      if same_float back.{i} want || Float.is_nan e && Float.is_nan back.{i} then None
      else Some (Printf.sprintf "%h: %h, of_float %h" e back.{i} want))
    (List.init n Fun.id)

(* ---- Allocation: of_code, holds and exact allocate nothing ---- *)

let allocation () =
  let words f =
    let before = Gc.minor_words () in
    for i = 0 to 99_999 do
      ignore (Sys.opaque_identity (f i))
    done;
    Gc.minor_words () -. before
  in
  let base = words (fun i -> i land 1 = 0) in
  let big = Sys.opaque_identity 12345678901L in
  let cases =
    [ ("of_code", words (fun i -> D.of_code ((i mod 25) - 2) <> None));
      ("holds", words (fun i ->
           D.holds D.Int16 (i * 3) && D.holds D.Uint4 (i land 31) && D.holds D.Int64 big
           && D.holds D.Float16 0.5));
      ("exact", words (fun i ->
           let (D.Any a) = anys.(i mod 21) in
           let (D.Any b) = anys.(i / 21 mod 21) in
           D.exact a b));
      ("Any", words (fun i -> let (D.Any a) = anys.(i mod 21) in Obj.is_int (Obj.repr (D.Any a)))) ]
  in
  List.iter
    (fun (n, w) ->
      check (Printf.sprintf "%s allocates nothing (%.0f words for 100000 calls, loop %.0f)" n w base)
        (w <= base +. 8.))
    cases

let () =
  (* make test-ocaml names the compiler the build must have used. *)
  (match Sys.getenv_opt "NX_OCAML_VERSION" with
  | Some v -> check (Printf.sprintf "built by OCaml %s (by %s)" v Sys.ocaml_version) (Sys.ocaml_version = v)
  | None -> ());
  documented_examples ();
  table ();
  bigarray ();
  facts ();
  holds ();
  exact_definition ();
  stores ();
  printing ();
  convert ();
  allocation ();
  finish ()
