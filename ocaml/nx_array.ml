(* Nx_array.Dtype over libnx_dtype. Facts, stores and printing come from the
   C library (one source of truth); what the type system does — GADT
   matches, kinds, witnesses, Bigarray kinds, zero and one — stays OCaml. *)

module Dtype = struct
  type float64_elt = Stdlib.Bigarray.float64_elt
  type float32_elt = Stdlib.Bigarray.float32_elt
  type float16_elt = Stdlib.Bigarray.float16_elt
  type bfloat16_elt = |
  type float8_e4m3fn_elt = |
  type float8_e5m2_elt = |
  type float4_e2m1fn_elt = |
  type int64_elt = Stdlib.Bigarray.int64_elt
  type uint64_elt = |
  type int32_elt = Stdlib.Bigarray.int32_elt
  type uint32_elt = |
  type int16_signed_elt = Stdlib.Bigarray.int16_signed_elt
  type int16_unsigned_elt = Stdlib.Bigarray.int16_unsigned_elt
  type int8_signed_elt = Stdlib.Bigarray.int8_signed_elt
  type int8_unsigned_elt = Stdlib.Bigarray.int8_unsigned_elt
  type int4_elt = |
  type uint4_elt = |
  type complex64_elt = Stdlib.Bigarray.complex64_elt
  type complex32_elt = Stdlib.Bigarray.complex32_elt
  type bool_elt = |
  type bit_elt = |

  type ('v, 's) t =
    | Float64 : (float, float64_elt) t
    | Float32 : (float, float32_elt) t
    | Float16 : (float, float16_elt) t
    | Bfloat16 : (float, bfloat16_elt) t
    | Float8_e4m3fn : (float, float8_e4m3fn_elt) t
    | Float8_e5m2 : (float, float8_e5m2_elt) t
    | Float4_e2m1fn : (float, float4_e2m1fn_elt) t
    | Int64 : (int64, int64_elt) t
    | Uint64 : (int64, uint64_elt) t
    | Int32 : (int32, int32_elt) t
    | Uint32 : (int32, uint32_elt) t
    | Int16 : (int, int16_signed_elt) t
    | Uint16 : (int, int16_unsigned_elt) t
    | Int8 : (int, int8_signed_elt) t
    | Uint8 : (int, int8_unsigned_elt) t
    | Int4 : (int, int4_elt) t
    | Uint4 : (int, uint4_elt) t
    | Complex128 : (Stdlib.Complex.t, complex64_elt) t
    | Complex64 : (Stdlib.Complex.t, complex32_elt) t
    | Bool : (bool, bool_elt) t
    | Bit : (bool, bit_elt) t

  (* Unboxed: an [any] is the constant constructor itself, an immediate. *)
  type any = Any : ('v, 's) t -> any [@@unboxed]

  let all =
    [ Any Float64; Any Float32; Any Float16; Any Bfloat16; Any Float8_e4m3fn;
      Any Float8_e5m2; Any Float4_e2m1fn; Any Int64; Any Uint64; Any Int32;
      Any Uint32; Any Int16; Any Uint16; Any Int8; Any Uint8; Any Int4;
      Any Uint4; Any Complex128; Any Complex64; Any Bool; Any Bit ]

  (* A constant constructor is the immediate integer of its rank, and ranks
     are the NX_* codes (the tests check this against the library). *)
  external code : ('v, 's) t -> int = "%identity"

  (* Precomputed [Some], so that of_code allocates nothing. *)
  let some_any = Array.of_list (List.map Option.some all)

  let of_code c =
    if c >= 0 && c < Array.length some_any then Array.unsafe_get some_any c
    else None

  (* ---- Stubs (nx_dtype_stubs.c). Codes passed are always valid. ---- *)

  external bits_stub : (int[@untagged]) -> (int[@untagged])
    = "nx_ml_bits_byte" "nx_ml_bits" [@@noalloc]
  external of_name_stub : string -> (int[@untagged])
    = "nx_ml_of_name_byte" "nx_ml_of_name" [@@noalloc]
  external bytes_stub : (int[@untagged]) -> (int[@untagged]) -> (int[@untagged])
    = "nx_ml_bytes_byte" "nx_ml_bytes" [@@noalloc]
  external exact_stub : (int[@untagged]) -> (int[@untagged]) -> bool
    = "nx_ml_exact_byte" "nx_ml_exact" [@@noalloc]
  external name_stub : int -> string = "nx_ml_name"

  type float_format = {
    exponent_bits : int;
    fraction_bits : int;
    infinities : bool;
    nans : bool;
    epsilon : float;
    min_normal : float;
    max_finite : float;
  }

  external float_format_stub : int -> float_format = "nx_ml_float_format"

  external extreme_float : (int[@untagged]) -> bool -> (float[@unboxed])
    = "nx_ml_extreme_float_byte" "nx_ml_extreme_float" [@@noalloc]
  external extreme_int : (int[@untagged]) -> bool -> (int[@untagged])
    = "nx_ml_extreme_int_byte" "nx_ml_extreme_int" [@@noalloc]
  external extreme_int32 : (int[@untagged]) -> bool -> (int32[@unboxed])
    = "nx_ml_extreme_int32_byte" "nx_ml_extreme_int32" [@@noalloc]
  external extreme_int64 : (int[@untagged]) -> bool -> (int64[@unboxed])
    = "nx_ml_extreme_int64_byte" "nx_ml_extreme_int64" [@@noalloc]
  external extreme_bool : (int[@untagged]) -> bool -> bool
    = "nx_ml_extreme_bool_byte" "nx_ml_extreme_bool" [@@noalloc]

  external store_float : (int[@untagged]) -> (float[@unboxed]) -> (float[@unboxed])
    = "nx_ml_store_float_byte" "nx_ml_store_float" [@@noalloc]
  external store_int : (int[@untagged]) -> (float[@unboxed]) -> (int[@untagged])
    = "nx_ml_store_int_byte" "nx_ml_store_int" [@@noalloc]
  external store_int32 : (int[@untagged]) -> (float[@unboxed]) -> (int32[@unboxed])
    = "nx_ml_store_int32_byte" "nx_ml_store_int32" [@@noalloc]
  external store_int64 : (int[@untagged]) -> (float[@unboxed]) -> (int64[@unboxed])
    = "nx_ml_store_int64_byte" "nx_ml_store_int64" [@@noalloc]
  external store_bool : (int[@untagged]) -> (float[@unboxed]) -> bool
    = "nx_ml_store_bool_byte" "nx_ml_store_bool" [@@noalloc]
  (* Allocates its Complex.t, so not noalloc. *)
  external store_complex : (int[@untagged]) -> (float[@unboxed]) -> Complex.t
    = "nx_ml_store_complex_byte" "nx_ml_store_complex"

  external format_f64 : (int[@untagged]) -> (float[@unboxed]) -> Bytes.t -> (int[@untagged])
    = "nx_ml_format_f64_byte" "nx_ml_format_f64" [@@noalloc]
  external format_bits : (int[@untagged]) -> (int64[@unboxed]) -> Bytes.t -> (int[@untagged])
    = "nx_ml_format_bits_byte" "nx_ml_format_bits" [@@noalloc]
  external format_complex :
    (int[@untagged]) -> (float[@unboxed]) -> (float[@unboxed]) -> Bytes.t -> (int[@untagged])
    = "nx_ml_format_complex_byte" "nx_ml_format_complex" [@@noalloc]

  (* ---- Facts ---- *)

  let bits dt = bits_stub (code dt)

  let bytes dt n =
    if n < 0 then invalid_arg "Nx_array.Dtype.bytes: negative count";
    let b = bytes_stub (code dt) n in
    if b < 0 then invalid_arg "Nx_array.Dtype.bytes: the size does not fit in an int";
    b

  (* Names and float formats are the library's, read once: returning them
     then allocates nothing. *)
  let names = Array.init (Array.length some_any) name_stub
  let name dt = Array.unsafe_get names (code dt)

  let of_name s =
    let c = of_name_stub s in
    if c < 0 then None else of_code c

  let pp ppf dt = Format.pp_print_string ppf (name dt)

  (* ---- Kinds ---- *)

  type 'v kind =
    | Float : float kind
    | Complex : Stdlib.Complex.t kind
    | Signed : 'v kind
    | Unsigned : 'v kind
    | Boolean : bool kind

  let kind : type v s. (v, s) t -> v kind = function
    | Float64 -> Float | Float32 -> Float | Float16 -> Float
    | Bfloat16 -> Float | Float8_e4m3fn -> Float | Float8_e5m2 -> Float
    | Float4_e2m1fn -> Float
    | Int64 -> Signed | Uint64 -> Unsigned | Int32 -> Signed
    | Uint32 -> Unsigned | Int16 -> Signed | Uint16 -> Unsigned
    | Int8 -> Signed | Uint8 -> Unsigned | Int4 -> Signed | Uint4 -> Unsigned
    | Complex128 -> Complex | Complex64 -> Complex
    | Bool -> Boolean | Bit -> Boolean

  let is : type k v s. k kind -> (v, s) t -> bool =
   fun k dt ->
    match (k, kind dt) with
    | Float, Float -> true
    | Complex, Complex -> true
    | Signed, Signed -> true
    | Unsigned, Unsigned -> true
    | Boolean, Boolean -> true
    | _ -> false

  (* ---- Equality ---- *)

  let equal dt dt' = code dt = code dt'

  let equal_witness : type v s w r.
      (v, s) t -> (w, r) t -> ((v, s) t, (w, r) t) Type.eq option =
   fun a b ->
    match (a, b) with
    | Float64, Float64 -> Some Equal
    | Float32, Float32 -> Some Equal
    | Float16, Float16 -> Some Equal
    | Bfloat16, Bfloat16 -> Some Equal
    | Float8_e4m3fn, Float8_e4m3fn -> Some Equal
    | Float8_e5m2, Float8_e5m2 -> Some Equal
    | Float4_e2m1fn, Float4_e2m1fn -> Some Equal
    | Int64, Int64 -> Some Equal
    | Uint64, Uint64 -> Some Equal
    | Int32, Int32 -> Some Equal
    | Uint32, Uint32 -> Some Equal
    | Int16, Int16 -> Some Equal
    | Uint16, Uint16 -> Some Equal
    | Int8, Int8 -> Some Equal
    | Uint8, Uint8 -> Some Equal
    | Int4, Int4 -> Some Equal
    | Uint4, Uint4 -> Some Equal
    | Complex128, Complex128 -> Some Equal
    | Complex64, Complex64 -> Some Equal
    | Bool, Bool -> Some Equal
    | Bit, Bit -> Some Equal
    | _ -> None

  (* ---- Bigarray kinds ---- *)

  let of_bigarray_kind : type v s. (v, s) Bigarray.kind -> (v, s) t option =
    function
    | Bigarray.Float64 -> Some Float64
    | Bigarray.Float32 -> Some Float32
    | Bigarray.Float16 -> Some Float16
    | Bigarray.Int64 -> Some Int64
    | Bigarray.Int32 -> Some Int32
    | Bigarray.Int16_signed -> Some Int16
    | Bigarray.Int16_unsigned -> Some Uint16
    | Bigarray.Int8_signed -> Some Int8
    | Bigarray.Int8_unsigned -> Some Uint8
    | Bigarray.Complex64 -> Some Complex128
    | Bigarray.Complex32 -> Some Complex64
    | Bigarray.Char | Bigarray.Int | Bigarray.Nativeint -> None

  let to_bigarray_kind : type v s. (v, s) t -> (v, s) Bigarray.kind option =
    function
    | Float64 -> Some Bigarray.Float64
    | Float32 -> Some Bigarray.Float32
    | Float16 -> Some Bigarray.Float16
    | Int64 -> Some Bigarray.Int64
    | Int32 -> Some Bigarray.Int32
    | Int16 -> Some Bigarray.Int16_signed
    | Uint16 -> Some Bigarray.Int16_unsigned
    | Int8 -> Some Bigarray.Int8_signed
    | Uint8 -> Some Bigarray.Int8_unsigned
    | Complex128 -> Some Bigarray.Complex64
    | Complex64 -> Some Bigarray.Complex32
    | Bfloat16 | Float8_e4m3fn | Float8_e5m2 | Float4_e2m1fn | Uint64 | Uint32
    | Int4 | Uint4 | Bool | Bit ->
        None

  (* ---- Values ---- *)

  (* How OCaml holds a dtype's values: one arm per value type, so that the
     functions below dispatch once to the right stub. *)
  type 'v repr =
    | R_float : float repr
    | R_int : int repr
    | R_int32 : int32 repr
    | R_int64 : int64 repr
    | R_complex : Complex.t repr
    | R_bool : bool repr

  let repr : type v s. (v, s) t -> v repr = function
    | Float64 -> R_float | Float32 -> R_float | Float16 -> R_float
    | Bfloat16 -> R_float | Float8_e4m3fn -> R_float | Float8_e5m2 -> R_float
    | Float4_e2m1fn -> R_float
    | Int64 -> R_int64 | Uint64 -> R_int64
    | Int32 -> R_int32 | Uint32 -> R_int32
    | Int16 -> R_int | Uint16 -> R_int | Int8 -> R_int | Uint8 -> R_int
    | Int4 -> R_int | Uint4 -> R_int
    | Complex128 -> R_complex | Complex64 -> R_complex
    | Bool -> R_bool | Bit -> R_bool

  let zero : type v s. (v, s) t -> v =
   fun dt ->
    match repr dt with
    | R_float -> 0. | R_int -> 0 | R_int32 -> 0l | R_int64 -> 0L
    | R_complex -> Complex.zero | R_bool -> false

  let one : type v s. (v, s) t -> v =
   fun dt ->
    match repr dt with
    | R_float -> 1. | R_int -> 1 | R_int32 -> 1l | R_int64 -> 1L
    | R_complex -> Complex.one | R_bool -> true

  let extreme : type v s. string -> bool -> (v, s) t -> v =
   fun fn greatest dt ->
    let c = code dt in
    match repr dt with
    | R_float -> extreme_float c greatest
    | R_int -> extreme_int c greatest
    | R_int32 -> extreme_int32 c greatest
    | R_int64 -> extreme_int64 c greatest
    | R_bool -> extreme_bool c greatest
    | R_complex ->
        invalid_arg ("Nx_array.Dtype." ^ fn ^ ": " ^ name dt ^ " is complex")

  let min_value dt = extreme "min_value" false dt
  let max_value dt = extreme "max_value" true dt

  (* The range of each dtype read as int (0 for the others), from the
     library once, so that holds neither calls out nor allocates. *)
  let int_range greatest =
    Array.init (Array.length some_any) (fun c ->
        match Array.unsafe_get some_any c with
        | Some (Any dt) -> (
            match repr dt with R_int -> extreme_int c greatest | _ -> 0)
        | None -> 0)

  let int_min = int_range false
  let int_max = int_range true

  let holds : type v s. (v, s) t -> v -> bool =
   fun dt x ->
    match repr dt with
    | R_int ->
        let c = code dt in
        x >= Array.unsafe_get int_min c && x <= Array.unsafe_get int_max c
    | _ -> true

  let exact a b = exact_stub (code a) (code b)

  let of_float : type v s. (v, s) t -> float -> v =
   fun dt x ->
    let c = code dt in
    match repr dt with
    | R_float -> store_float c x
    | R_int -> store_int c x
    | R_int32 -> store_int32 c x
    | R_int64 -> store_int64 c x
    | R_bool -> store_bool c x
    | R_complex -> store_complex c x

  let format_max = 64 (* NX_FORMAT_MAX *)
  let err_not_value = -5 (* NX_ERR_NOT_VALUE *)

  let not_value dt what =
    invalid_arg
      (Printf.sprintf "Nx_array.Dtype.pp_value: %s is not a value of %s" what
         (name dt))

  let pp_value : type v s. (v, s) t -> Format.formatter -> v -> unit =
   fun dt ppf x ->
    let c = code dt in
    let buf = Bytes.create format_max in
    let n =
      match repr dt with
      | R_float -> format_f64 c x buf
      | R_int ->
          if not (holds dt x) then not_value dt (string_of_int x);
          format_bits c (Int64.of_int x) buf
      | R_int32 -> format_bits c (Int64.of_int32 x) buf
      | R_int64 -> format_bits c x buf
      | R_bool -> format_bits c (if x then 1L else 0L) buf
      | R_complex -> format_complex c x.re x.im buf
    in
    if n < 0 then begin
      if n = err_not_value then
        not_value dt
          (match repr dt with
          | R_float -> Printf.sprintf "%h" x
          | R_complex -> Printf.sprintf "{re = %h; im = %h}" x.re x.im
          | _ -> "the value")
      else failwith ("Nx_array.Dtype.pp_value: libnx_dtype status " ^ string_of_int n)
    end;
    Format.pp_print_substring ~pos:0 ~len:n ppf (Bytes.unsafe_to_string buf)

  let float_formats = Array.init (Array.length some_any) float_format_stub
  let float_format (dt : (float, _) t) = Array.unsafe_get float_formats (code dt)
end

(* Whole arrays through nx_convert (nx_dtype_stubs.c): the stub checks the
   count and both sizes before the library runs, and releases the runtime
   lock while it does, above a size; this side maps kinds to codes, checks
   dimensions and words the errors. *)
module Convert = struct
  type buffer = (char, Bigarray.int8_unsigned_elt, Bigarray.c_layout) Bigarray.Array1.t

  external convert_buffer : int -> buffer -> int -> buffer -> int -> int = "nx_ml_convert"

  external convert_genarray :
    int -> ('a, 'b, 'l) Bigarray.Genarray.t -> int -> ('c, 'd, 'l) Bigarray.Genarray.t -> int -> int
    = "nx_ml_convert"

  external status_message : int -> string = "nx_ml_status_message"

  (* The stub's own statuses (ML_* in nx_dtype_stubs.c). *)
  let negative_count = 1
  let src_short = 2
  let dst_short = 3

  let fail fn fmt = Printf.ksprintf (fun s -> invalid_arg ("Nx_array.Convert." ^ fn ^ ": " ^ s)) fmt

  (* Raises the error a non-zero status of the stub stands for: n elements
     from dtype code a in src (of sbytes bytes) to b in dst (dbytes). *)
  let check_status fn st ~n ~a ~sbytes ~b ~dbytes =
    let short what have c =
      match Dtype.of_code c with
      | Some (Dtype.Any dt) ->
          let need = match Dtype.bytes dt n with k -> string_of_int k | exception Invalid_argument _ -> "more" in
          fail fn "%s holds %d bytes; %d elements of %s need %s" what have n (Dtype.name dt) need
      | None -> fail fn "%s holds %d bytes, too few" what have
    in
    if st = 0 then ()
    else if st = negative_count then fail fn "n is negative (%d)" n
    else if st = src_short then short "src" sbytes a
    else if st = dst_short then short "dst" dbytes b
    else fail fn "%s" (status_message st)

  let buffer a (src : buffer) b (dst : buffer) n =
    let a = Dtype.code a and b = Dtype.code b in
    check_status "buffer" (convert_buffer a src b dst n) ~n ~a ~sbytes:(Bigarray.Array1.dim src) ~b
      ~dbytes:(Bigarray.Array1.dim dst)

  (* A kind's dtype code: Dtype's map, and Char's bytes as uint8. *)
  let code_of_kind : type v s. string -> (v, s) Bigarray.kind -> int =
   fun what k ->
    match Dtype.of_bigarray_kind k with
    | Some dt -> Dtype.code dt
    | None -> (
        match k with
        | Bigarray.Char -> Dtype.code Dtype.Uint8
        | Bigarray.Int -> fail "blit" "%s's kind, int, has no dtype" what
        | _ -> fail "blit" "%s's kind, nativeint, has no dtype" what)

  let show_dims d =
    "[|" ^ String.concat "; " (Array.to_list (Array.map string_of_int d)) ^ "|]"

  let blit src dst =
    let open Bigarray.Genarray in
    let s = code_of_kind "src" (kind src) in
    let d = code_of_kind "dst" (kind dst) in
    let sd = dims src and dd = dims dst in
    if sd <> dd then
      fail "blit" "dst's dimensions %s differ from src's %s" (show_dims dd) (show_dims sd);
    let n = Array.fold_left ( * ) 1 sd in
    check_status "blit" (convert_genarray s src d dst n) ~n ~a:s ~sbytes:(size_in_bytes src) ~b:d
      ~dbytes:(size_in_bytes dst)
end
