(* Convert.blit at 1 Mi elements against an OCaml loop of Dtype.of_float
   into the same arrays, and against Bigarray's blit of a char array as
   large as source and destination together (its byte rate: what reading
   and writing those bytes costs at least). Then what releasing the runtime
   lock costs: Convert.buffer either side of the size where the stubs start
   to release it. Each figure is the best of many runs, the contenders
   alternated in each round. Writes Markdown to stdout. *)

module D = Nx_array.Dtype
module C = Nx_array.Convert
open Bigarray

external now : unit -> (float[@unboxed]) = "nx_bench_now_byte" "nx_bench_now" [@@noalloc]
external kernel_isa : unit -> string = "nx_bench_isa"
external release_bytes : unit -> int = "nx_ml_release_bytes"

let n = 1 lsl 20

let time f =
  let t0 = now () in
  f ();
  now () -. t0

(* The targets: Convert.blit's byte rate at least this share of the byte
   copy's, and at least this many times the loop's element rate. *)
let copy_target = 0.8
let loop_target = 20.

type pair =
  | P : {
      name : string;
      src : ('a, 'b, c_layout) Array1.t;
      dst : ('c, 'd, c_layout) Array1.t;
      loop : unit -> unit;
    }
      -> pair

let values = Array.init n (fun i -> ldexp (float_of_int ((i * 7919) mod 2001) -. 1000.) ((i mod 24) - 12) +. 0.1)

let pairs () =
  let f32 = Array1.init float32 c_layout n (fun i -> values.(i)) in
  let h = Array1.create float16 c_layout n in
  let f64 = Array1.init float64 c_layout n (fun i -> values.(i)) in
  let s = Array1.create float32 c_layout n in
  [ P { name = "float32 -> float16"; src = f32; dst = h;
        loop = (fun () ->
          for i = 0 to n - 1 do
            Array1.unsafe_set h i (D.of_float D.Float16 (Array1.unsafe_get f32 i))
          done) };
    P { name = "float64 -> float32"; src = f64; dst = s;
        loop = (fun () ->
          for i = 0 to n - 1 do
            Array1.unsafe_set s i (D.of_float D.Float32 (Array1.unsafe_get f64 i))
          done) } ]

let bench (P p) =
  let bytes = Array1.size_in_bytes p.src + Array1.size_in_bytes p.dst in
  let a = Array1.create char c_layout bytes and b = Array1.create char c_layout bytes in
  Array1.fill a 'x';
  let ga = genarray_of_array1 a and gb = genarray_of_array1 b in
  let src = genarray_of_array1 p.src and dst = genarray_of_array1 p.dst in
  let tb = ref infinity and tc = ref infinity and tl = ref infinity in
  for round = 1 to 60 do
    tb := Float.min !tb (time (fun () -> C.blit src dst));
    tc := Float.min !tc (time (fun () -> Genarray.blit ga gb));
    if round mod 6 = 0 then tl := Float.min !tl (time p.loop)
  done;
  (* The loop and the blit wrote the same elements. *)
  let check = Array1.create (Array1.kind p.dst) c_layout n in
  C.blit src (genarray_of_array1 check);
  p.loop ();
  if check <> p.dst then failwith (p.name ^ ": the loop and Convert.blit differ");
  let rate t = float_of_int bytes /. t /. 1e9 in
  let ns t = t *. 1e9 /. float_of_int n in
  let ratio = !tc /. !tb and speedup = !tl /. !tb in
  Printf.printf "| %s | %.3f | %.1f | %.1f | %.2fx %s | %.2f | %.1fx %s |\n%!" p.name (ns !tb) (rate !tb)
    (rate !tc) ratio
    (if ratio >= copy_target then "met" else "missed")
    (ns !tl) speedup
    (if speedup >= loop_target then "met" else "missed")

(* Convert.buffer float32 -> float16 of k elements, 6 bytes each: ns a call,
   best of many. *)
let per_call k =
  let src = Array1.create char c_layout (4 * k) and dst = Array1.create char c_layout (2 * k) in
  Array1.fill src '\x00';
  let best = ref infinity in
  for _ = 1 to 3000 do
    best := Float.min !best (time (fun () -> C.buffer D.Float32 src D.Float16 dst k))
  done;
  !best *. 1e9

(* The first line of a /proc file that starts with [key], if any. *)
let proc file key =
  try
    In_channel.with_open_text file (fun ic ->
        let rec find () =
          match In_channel.input_line ic with
          | Some l when String.starts_with ~prefix:key l -> Some l
          | Some _ -> find ()
          | None -> None
        in
        find ())
  with Sys_error _ -> None

let () =
  let cpu = match proc "/proc/cpuinfo" "model name" with
    | Some l -> (match String.index_opt l ':' with Some i -> String.trim (String.sub l (i + 1) (String.length l - i - 1)) | None -> l)
    | None -> "unknown CPU"
  in
  Printf.printf "## Nx_array.Convert.blit, %d elements\n\n%s, OCaml %s, kernels %s%s.\n\n" n cpu Sys.ocaml_version
    (kernel_isa ())
    (match proc "/proc/loadavg" "" with Some l -> ", load average " ^ l | None -> "");
  Printf.printf
    "Byte rates count source and destination bytes; the byte copy is Bigarray.Genarray.blit of that \
     many chars. Targets: >= %.1fx the byte copy's rate, >= %.0fx the of_float loop.\n\n"
    copy_target loop_target;
  print_string
    "| pair | blit ns/element | blit GB/s | byte copy GB/s | blit / copy | of_float loop ns/element | blit / loop |\n\
     |---|---|---|---|---|---|---|\n";
  List.iter bench (pairs ());
  let r = release_bytes () in
  let below = (r - 1) / 6 and above = (r + 5) / 6 in
  let tb = per_call below and ta = per_call above in
  Printf.printf
    "\n## Releasing the runtime lock\n\n\
     Convert.buffer float32 -> float16 releases the lock from %d bytes (source and destination \
     together) on:\n\n\
     | elements | bytes | lock | ns a call |\n|---|---|---|---|\n\
     | %d | %d | kept | %.0f |\n| %d | %d | released | %.0f |\n\n\
     Releasing and taking it back, uncontended: %.1f ns, %.1f%% of the call below the threshold.\n"
    r below (6 * below) tb above (6 * above) ta (ta -. tb) (100. *. (ta -. tb) /. tb)
