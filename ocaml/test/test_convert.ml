(* Tests of Nx_array.Convert: every pair of dtypes through [buffer] against
   the C library called directly (test_stubs.c), every pair of Bigarray
   kinds through [blit] against Dtype.of_float element by element, shapes
   and layouts, every error with nothing written, and another domain
   running, and collecting, while a large conversion is under way. Prints
   "N passed, N failed"; exits 1 on failure. *)

open Harness
open Bigarray
module D = Nx_array.Dtype
module C = Nx_array.Convert

external t_convert :
  int -> ('a, 'b, 'c) Array1.t -> int -> ('d, 'e, 'f) Array1.t -> int -> int = "t_convert"

external t_unmap_large_frees : unit -> unit = "t_unmap_large_frees"

let contains s sub =
  let n = String.length s and m = String.length sub in
  let rec at i = i + m <= n && (String.sub s i m = sub || at (i + 1)) in
  at 0

(* The message of the Invalid_argument [f ()] raises, if it raises one. *)
let message f = match f () with _ -> None | exception Invalid_argument m -> Some m

let random_buffer n : C.buffer =
  let b = Array1.create char c_layout n in
  for i = 0 to n - 1 do
    b.{i} <- Char.chr (Random.int 256)
  done;
  b

let contents (b : C.buffer) = String.init (Array1.dim b) (Array1.get b)

let copy (b : C.buffer) =
  let c = Array1.create char c_layout (Array1.dim b) in
  Array1.blit b c;
  c

(* ---- buffer: every pair of dtypes against the C library ---- *)

(* Every length 0..70 (odd ones for the 4- and 1-bit dtypes), each buffer a
   sub-array one byte into a larger one of random bytes: the source just
   large enough, the destination with a byte of slack. The whole larger
   destination must be what nx_convert makes of the same bytes, and,
   checked apart from the library, no bit outside the n elements (the rest
   of a shared last byte included) nor any byte of the source may
   change. *)
let buffer_every_pair () =
  Random.init 5;
  let lengths = List.init 71 Fun.id in
  List.iter
    (fun (D.Any a) ->
      List.iter
        (fun (D.Any b) ->
          check_all
            (Printf.sprintf "buffer %s -> %s = C nx_convert, other bits kept" (D.name a) (D.name b))
            (fun n ->
              let sb = D.bytes a n and db = D.bytes b n in
              let src_all = random_buffer (sb + 2) and dst_all = random_buffer (db + 3) in
              let src_before = contents src_all and dst_before = contents dst_all in
              let want = copy dst_all in
              let st = t_convert (D.code a) (Array1.sub src_all 1 sb) (D.code b) (Array1.sub want 1 db) n in
              C.buffer a (Array1.sub src_all 1 sb) b (Array1.sub dst_all 1 (db + 1)) n;
              (* The elements' bits, counted from byte 0 of dst_all. *)
              let lo = 8 and hi = 8 + (n * D.bits b) in
              let outside i =
                let m = ref 0 in
                for k = 0 to 7 do
                  let bit = (8 * i) + k in
                  if bit < lo || bit >= hi then m := !m lor (1 lsl k)
                done;
                !m
              in
              let kept = ref true in
              String.iteri
                (fun i c ->
                  if (Char.code c lxor Char.code dst_all.{i}) land outside i <> 0 then kept := false)
                dst_before;
              if st <> 0 then Some (Printf.sprintf "n = %d: nx_convert failed (%d)" n st)
              else if contents dst_all <> contents want then Some (Printf.sprintf "n = %d: not C's bytes" n)
              else if not !kept then Some (Printf.sprintf "n = %d: a bit outside the elements changed" n)
              else if contents src_all <> src_before then Some (Printf.sprintf "n = %d: src changed" n)
              else None)
            lengths)
        D.all)
    D.all

(* ---- blit: every pair of kinds against of_float ---- *)

(* A Bigarray kind as the test sees it: [make re im] is the element a store
   of re (and im, for complex kinds) gives, by Dtype.of_float of the kind's
   dtype; [value e] is the number element e holds, exactly. *)
type kd =
  | K : {
      kind : ('v, 's) kind;
      name : string;
      make : float -> float -> 'v;
      value : 'v -> float * float;
    }
      -> kd

let component dt x = (D.of_float dt x).Complex.re

let kinds =
  [ K { kind = float64; name = "float64"; make = (fun x _ -> D.of_float D.Float64 x); value = (fun v -> (v, 0.)) };
    K { kind = float32; name = "float32"; make = (fun x _ -> D.of_float D.Float32 x); value = (fun v -> (v, 0.)) };
    K { kind = float16; name = "float16"; make = (fun x _ -> D.of_float D.Float16 x); value = (fun v -> (v, 0.)) };
    K { kind = complex64; name = "complex64";
        make = (fun x y -> { Complex.re = component D.Complex128 x; im = component D.Complex128 y });
        value = (fun z -> (z.re, z.im)) };
    K { kind = complex32; name = "complex32";
        make = (fun x y -> { Complex.re = component D.Complex64 x; im = component D.Complex64 y });
        value = (fun z -> (z.re, z.im)) };
    K { kind = int8_signed; name = "int8_signed"; make = (fun x _ -> D.of_float D.Int8 x);
        value = (fun v -> (float_of_int v, 0.)) };
    K { kind = int8_unsigned; name = "int8_unsigned"; make = (fun x _ -> D.of_float D.Uint8 x);
        value = (fun v -> (float_of_int v, 0.)) };
    K { kind = char; name = "char"; make = (fun x _ -> Char.chr (D.of_float D.Uint8 x));
        value = (fun c -> (float_of_int (Char.code c), 0.)) };
    K { kind = int16_signed; name = "int16_signed"; make = (fun x _ -> D.of_float D.Int16 x);
        value = (fun v -> (float_of_int v, 0.)) };
    K { kind = int16_unsigned; name = "int16_unsigned"; make = (fun x _ -> D.of_float D.Uint16 x);
        value = (fun v -> (float_of_int v, 0.)) };
    K { kind = int32; name = "int32"; make = (fun x _ -> D.of_float D.Int32 x);
        value = (fun v -> (Int32.to_float v, 0.)) };
    (* Elements made from doubles hold integers a double holds exactly, but
       for max_int64, which reads as 2^63: every dtype stores 2^63 as it
       stores 2^63 - 1 (integers saturate, floats round up to 2^63). *)
    K { kind = int64; name = "int64"; make = (fun x _ -> D.of_float D.Int64 x);
        value = (fun v -> (Int64.to_float v, 0.)) } ]

(* Bit for bit, but NaNs only by sign: their payloads are the buffer test's
   (against the library), not OCaml's readers' of float16 and float32. *)
let same_number a b =
  if Float.is_nan a || Float.is_nan b then Float.is_nan a && Float.is_nan b && Float.sign_bit a = Float.sign_bit b
  else same_float a b

let inputs () =
  Random.init 17;
  let specials =
    [ 0.; -0.; 0.5; -0.5; 1.5; -2.5; 127.5; 128.; -129.; 255.5; 256.; -1.; 32767.5; 65504.; 65519.;
      65520.; -65520.; 70000.; 2147483647.5; 2147483648.; -2147483649.; 4294967296.; 0x1p53; 0x1.fffffffffffffp62;
      0x1p63; -0x1p63; -9.3e18; 1e30; infinity; neg_infinity; nan; -.nan;
      Int64.float_of_bits 0x7FF4000000000001L; 0x1p-24; 0x1p-25; 0x1.8p-25; 0x1p-149; 0x1p-150;
      max_float; 1e-310 ]
  in
  let random = Array.init 3000 (fun i ->
    match i mod 3 with
    | 0 -> Int64.float_of_bits (Random.bits64 ())
    | 1 -> ldexp (Random.float 2. -. 1.) (Random.int 100 - 30)
    | _ -> Float.of_int (Random.int 140000 - 70000) +. Random.float 1.)
  in
  let xs = Array.append (Array.of_list specials) random in
  Array.mapi (fun i x -> (x, xs.((i * 7919) mod Array.length xs))) xs

let blit_every_kind_pair () =
  let xs = inputs () in
  let n = Array.length xs in
  List.iter
    (fun (K s) ->
      let src = Array1.init s.kind c_layout n (fun i -> s.make (fst xs.(i)) (snd xs.(i))) in
      List.iter
        (fun (K d) ->
          let dst = Array1.create d.kind c_layout n in
          C.blit (genarray_of_array1 src) (genarray_of_array1 dst);
          check_all
            (Printf.sprintf "blit %s -> %s = of_float of each element" s.name d.name)
            (fun i ->
              let re, im = s.value src.{i} in
              let want = d.value (d.make re im) and got = d.value dst.{i} in
              if same_number (fst got) (fst want) && same_number (snd got) (snd want) then None
              else
                Some (Printf.sprintf "(%h, %h): (%h, %h), of_float (%h, %h)" re im (fst got) (snd got)
                        (fst want) (snd want)))
            (List.init n Fun.id))
        kinds)
    kinds;
  (* One rounding from the exact integer, where of_float of the nearest
     double would round twice: 2^60 + 2^36 + 1 is past the half step of
     float32 above 2^60, but its nearest double, 2^60 + 2^36, is that half
     step and rounds to even, 2^60. *)
  let v = Int64.(add (shift_left 1L 60) (add (shift_left 1L 36) 1L)) in
  let src = Array1.of_array int64 c_layout [| v; Int64.neg v |] in
  let dst = Array1.create float32 c_layout 2 in
  C.blit (genarray_of_array1 src) (genarray_of_array1 dst);
  check "blit int64 -> float32 rounds once: 2^60 + 2^36 + 1 -> 2^60 + 2^37"
    (dst.{0} = 0x1.000002p60 && dst.{1} = -0x1.000002p60
    && D.of_float D.Float32 (Int64.to_float v) = 0x1p60)

(* ---- Shapes and layouts ---- *)

(* Every index of dims, first being 0 (C layout) or 1 (Fortran layout). *)
let indices first dims =
  Array.fold_right
    (fun d acc -> List.concat_map (fun i -> List.map (fun rest -> i :: rest) acc) (List.init d (( + ) first)))
    dims [ [] ]
  |> List.map Array.of_list

let shapes () =
  let first : type l. l layout -> int = function C_layout -> 0 | Fortran_layout -> 1 in
  let each : type l. string -> l layout -> unit =
   fun lname layout ->
    let f = first layout in
    List.iter
      (fun dims ->
        let src = Genarray.create float64 layout dims in
        List.iteri (fun k i -> Genarray.set src i (ldexp (float_of_int (k * 7919 mod 1001) -. 500.) (k mod 30 - 15)))
          (indices f dims);
        let dst = Genarray.create float16 layout dims and cdst = Genarray.create complex32 layout dims in
        C.blit src dst;
        C.blit src cdst;
        let shape = String.concat "x" (List.map string_of_int (Array.to_list dims)) in
        check_all
          (Printf.sprintf "blit float64 -> float16, complex32 of %s, %s layout" shape lname)
          (fun i ->
            let x = Genarray.get src i in
            let h = Genarray.get dst i and z = Genarray.get cdst i in
            if same_float h (D.of_float D.Float16 x) && same_float z.re (D.of_float D.Float32 x) && same_float z.im 0.
            then None
            else Some (Printf.sprintf "%h" x))
          (indices f dims))
      [ [| 3; 4; 5 |]; [| 7 |]; [| 2; 1; 3; 2 |]; [||]; [| 3; 0; 2 |]; [| 0 |] ]
  in
  each "C" c_layout;
  each "Fortran" fortran_layout;
  (* Parts of arrays: a slice of rows as the source, and as the destination,
     where the rows around it must stay as they were. *)
  let a = Array2.init float32 c_layout 6 5 (fun i j -> float_of_int ((i * 5) + j) +. 0.25) in
  let rows = Genarray.sub_left (genarray_of_array2 a) 2 3 in
  let d = Array2.init int16_signed c_layout 6 5 (fun _ _ -> -7) in
  let drows = Genarray.sub_left (genarray_of_array2 d) 1 3 in
  C.blit rows drows;
  let ok = ref true in
  for i = 0 to 5 do
    for j = 0 to 4 do
      let want = if i >= 1 && i <= 3 then D.of_float D.Int16 a.{i + 1, j} else -7 in
      if d.{i, j} <> want then ok := false
    done
  done;
  check "blit rows 2..4 of a float32 array into rows 1..3 of an int16 one, others kept" !ok;
  let fa = Array2.init float64 fortran_layout 4 6 (fun i j -> float_of_int (i - j) *. 1.5) in
  let cols = Genarray.sub_right (genarray_of_array2 fa) 2 3 in
  let fd = Array2.create int8_signed fortran_layout 4 3 in
  C.blit cols (genarray_of_array2 fd);
  let ok = ref true in
  for i = 1 to 4 do
    for j = 1 to 3 do
      if fd.{i, j} <> D.of_float D.Int8 fa.{i, j + 1} then ok := false
    done
  done;
  check "blit columns 2..4 of a Fortran float64 array into an int8 one" !ok;
  let s = Array1.of_array float32 c_layout [| 1.; 2.; 3.; 4. |] in
  let t = Array1.create float64 c_layout 3 in
  C.blit (genarray_of_array1 (Array1.sub s 1 3)) (genarray_of_array1 t);
  check "blit of a sub-array starts at its first element" (t.{0} = 2. && t.{2} = 4.)

(* ---- Errors: each raises Invalid_argument and writes nothing ---- *)

let errors () =
  let f32 dims = Genarray.init float32 c_layout dims (fun i -> float_of_int (Array.fold_left ( + ) 1 i)) in
  (* [fails name dst f sub]: f raises Invalid_argument whose message
     starts with the function's name and holds [sub], and dst is as it
     was. *)
  let fails : type a b l. string -> string -> (a, b, l) Genarray.t -> (unit -> unit) -> string -> unit =
   fun fn name dst f sub ->
    let before = Genarray.create (Genarray.kind dst) (Genarray.layout dst) (Genarray.dims dst) in
    Genarray.blit dst before;
    let prefix = "Nx_array.Convert." ^ fn ^ ": " in
    match message f with
    | Some m ->
        check (Printf.sprintf "%s: %S" name m)
          (String.starts_with ~prefix m && contains m sub && dst = before)
    | None -> check (name ^ ": raises Invalid_argument") false
  in
  let blit_fails name src dst sub = fails "blit" name dst (fun () -> C.blit src dst) sub in
  blit_fails "blit from an int array" (Genarray.create int c_layout [| 4 |]) (f32 [| 4 |]) "src's kind, int,";
  blit_fails "blit into a nativeint array" (f32 [| 4 |]) (Genarray.create nativeint c_layout [| 4 |])
    "dst's kind, nativeint,";
  blit_fails "blit from int into nativeint names src" (Genarray.create int c_layout [| 4 |])
    (Genarray.create nativeint c_layout [| 4 |]) "src's kind";
  blit_fails "blit 2x3 into 3x2" (f32 [| 2; 3 |]) (f32 [| 3; 2 |]) "dst's dimensions [|3; 2|] differ from src's [|2; 3|]";
  blit_fails "blit 6 into 2x3" (f32 [| 6 |]) (f32 [| 2; 3 |]) "dimensions";
  blit_fails "blit 4 into 5" (f32 [| 4 |]) (f32 [| 5 |]) "dimensions";
  blit_fails "blit 0-D into 1" (f32 [||]) (f32 [| 1 |]) "dimensions";
  let a = f32 [| 4; 5 |] in
  blit_fails "blit an array into itself" a a "overlap";
  blit_fails "blit rows 0..1 into rows 1..2 of one array" (Genarray.sub_left a 0 2) (Genarray.sub_left a 1 2)
    "overlap";
  C.blit (Genarray.sub_left a 0 2) (Genarray.sub_left a 2 2);
  check "blit rows 0..1 into rows 2..3 of one array" (Genarray.get a [| 3; 4 |] = Genarray.get a [| 1; 4 |]);
  (* buffer *)
  let buffer_fails name dst f sub = fails "buffer" name (genarray_of_array1 dst) f sub in
  let buf n = random_buffer n in
  List.iter
    (fun (D.Any a) ->
      List.iter
        (fun (D.Any b) ->
          let pair = D.name a ^ " -> " ^ D.name b in
          let n = 9 in
          let sb = D.bytes a n and db = D.bytes b n in
          let dst = buf (db + 1) in
          buffer_fails ("buffer " ^ pair ^ " of n = -1") dst
            (fun () -> C.buffer a (buf sb) b dst (-1)) "n is negative (-1)";
          buffer_fails ("buffer " ^ pair ^ ", src a byte short") dst
            (fun () -> C.buffer a (buf (sb - 1)) b dst n)
            (Printf.sprintf "src holds %d bytes; 9 elements of %s need %d" (sb - 1) (D.name a) sb);
          let short = buf (db - 1) in
          buffer_fails ("buffer " ^ pair ^ ", dst a byte short") short
            (fun () -> C.buffer a (buf sb) b short n)
            (Printf.sprintf "dst holds %d bytes; 9 elements of %s need %d" (db - 1) (D.name b) db))
        [ D.Any D.Float32; D.Any D.Bit; D.Any D.Int4; D.Any D.Complex128 ])
    [ D.Any D.Float64; D.Any D.Bit; D.Any D.Float4_e2m1fn; D.Any D.Bool ];
  let dst = buf 64 in
  buffer_fails "buffer of n = min_int" dst (fun () -> C.buffer D.Float32 (buf 64) D.Float32 dst min_int) "n is negative";
  buffer_fails "buffer of n = max_int (its size overflows)" dst
    (fun () -> C.buffer D.Bit (buf 64) D.Bit dst max_int)
    (Printf.sprintf "src holds 64 bytes; %d elements of bit need %d" max_int (D.bytes D.Bit max_int));
  buffer_fails "buffer of n = max_int / 2, Complex128 (its size overflows)" dst
    (fun () -> C.buffer D.Float64 (buf 64) D.Complex128 dst (max_int / 2))
    (Printf.sprintf "src holds 64 bytes; %d elements of float64 need more" (max_int / 2));
  buffer_fails "buffer from a buffer into itself" dst (fun () -> C.buffer D.Float32 dst D.Float16 dst 8) "overlap";
  buffer_fails "buffer between overlapping parts" dst
    (fun () -> C.buffer D.Float32 (Array1.sub dst 0 16) D.Float32 (Array1.sub dst 12 16) 4) "overlap";
  buffer_fails "buffer between parts sharing a byte of bits" dst
    (fun () -> C.buffer D.Int4 (Array1.sub dst 0 2) D.Bit (Array1.sub dst 1 1) 3) "overlap";
  let b = buf 32 in
  C.buffer D.Float32 (Array1.sub b 0 16) D.Int32 (Array1.sub b 16 16) 4;
  check "buffer between disjoint parts of one buffer" true;
  C.buffer D.Float32 (buf 0) D.Bit (buf 0) 0;
  C.buffer D.Bit b D.Bit b 0;
  check "buffer of n = 0, empty buffers or one buffer twice" true

(* ---- The runtime lock ---- *)

(* Another domain forces a minor collection, then counts, over and over. A
   collection waits for every domain that holds the runtime lock, so the
   count cannot move while a conversion holds it; during a large one it
   must move, by 4 at least. Up to 50 calls, until one sees that: on a busy
   machine the other domain may not run during a call.

   And the arrays must stay alive for the call. Each source is made while
   the other domain waits, in the minor heap (custom_minor_max_size and
   custom_minor_ratio keep large bigarrays there), with nothing but the
   call's arguments holding it; the data of a large block freed is unmapped
   at once (t_unmap_large_frees). A collection during the call would free
   it, and the conversion would fault, but for the call's roots. *)
let no_lock () =
  let gc = Gc.get () in
  Gc.set { gc with custom_minor_max_size = 1 lsl 30; custom_minor_ratio = 1_000_000 };
  t_unmap_large_frees ();
  let counter = Atomic.make 0 and collect = Atomic.make true in
  let waiting = Atomic.make false and stop = Atomic.make false in
  let d =
    Domain.spawn (fun () ->
        while not (Atomic.get stop) do
          if Atomic.get collect then begin
            Atomic.set waiting false;
            Gc.minor ();
            Atomic.incr counter
          end
          else begin
            Atomic.set waiting true;
            Domain.cpu_relax ()
          end
        done)
  in
  while Atomic.get counter < 2 do
    Domain.cpu_relax ()
  done;
  let n = 1 lsl 22 in
  (* [make ()] makes the source, young, and returns the destination; [call
     src dst] converts and answers whether the last element is right. *)
  let during name make call =
    let best = ref 0 and tries = ref 0 and right = ref true in
    while !best < 4 && !tries < 50 do
      incr tries;
      Atomic.set collect false;
      while not (Atomic.get waiting) do
        Domain.cpu_relax ()
      done;
      Gc.minor ();
      let src, dst = make () in
      Atomic.set collect true;
      let c0 = Atomic.get counter in
      let last = call src dst in
      let c1 = Atomic.get counter in
      best := max !best (c1 - c0);
      if not last then right := false
    done;
    check
      (Printf.sprintf "%s of %d elements: the other domain collected %d times during one call (of %d)"
         name n !best !tries)
      (!best >= 4 && !right)
  in
  during "blit float64 -> float16"
    (fun () ->
      let src = Array1.create float64 c_layout n in
      Array1.fill src 1.5;
      (genarray_of_array1 src, Array1.create float16 c_layout n))
    (fun src dst ->
      C.blit src (genarray_of_array1 dst);
      dst.{n - 1} = 1.5);
  during "buffer int32 -> float16"
    (fun () ->
      (* Every element 0x01010101, past float16's range: infinity, 0x7C00. *)
      let src = Array1.create char c_layout (4 * n) in
      Array1.fill src '\x01';
      (src, Array1.create char c_layout (2 * n)))
    (fun src dst ->
      C.buffer D.Int32 src D.Float16 dst n;
      dst.{(2 * n) - 2} = '\x00' && dst.{(2 * n) - 1} = '\x7c');
  Atomic.set stop true;
  Domain.join d;
  Gc.set gc

let () =
  buffer_every_pair ();
  blit_every_kind_pair ();
  shapes ();
  errors ();
  no_lock ();
  finish ()
