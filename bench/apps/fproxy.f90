! fproxy: a small Fortran proxy application (plain MPI, `use mpi`).
!
!   fproxy [N]
!
! Jacobi iteration on a 1D problem distributed over the ranks in contiguous
! blocks: A x = b with A = tridiag(-1, d, -1) of order N (default N = 1000,
! d = 4; neighbours outside 1..N are absent, i.e. Dirichlet boundary).  The
! right-hand side is b = A * x_exact with x_exact(g) = g (global index g), so
!   b(g) = (d-2) g  for g < N,    b(N) = (d-1) N + 1.
! Each sweep exchanges one halo value with each neighbour (MPI_SENDRECV),
! computes the residual r = b - A x, and updates x = x + r / d.  It stops when
! ||r|| <= tol ||b|| (tol = 1e-12).
!
! Collectives, all four type/collective combinations:
!   MPI_BCAST      MPI_INTEGER           parameters (N, max sweeps, status)
!   MPI_BCAST      MPI_DOUBLE_PRECISION  parameters (d, tol)
!   MPI_ALLREDUCE  MPI_INTEGER           SUM of the local sizes
!   MPI_ALLREDUCE  MPI_DOUBLE_PRECISION  SUM of b.b (once), r.r (every sweep)
!   MPI_REDUCE     MPI_DOUBLE_PRECISION  SUM of x, MAX of |x - x_exact|
!   MPI_REDUCE     MPI_INTEGER           SUM of the points that are off
!   MPI_BCAST      MPI_INTEGER           the final verdict from rank 0
!
! Verified against closed forms computed independently of the iteration:
!   * the local sizes add up to N;
!   * ||b||^2 = (d-2)^2 (N-1) N (2N-1) / 6 + ((d-1) N + 1)^2;
!   * Jacobi with constant diagonal has a symmetric iteration matrix
!     G = I - A/d, so ||r_k|| <= rho^k ||b|| with
!     rho = (2/d) cos(pi/(N+1)): the sweep count is at most
!     ceil(log(tol) / log(rho)) (with 1 % of slack for rounding);
!   * the error: ||x - x_exact|| <= ||r|| / lambda_min,
!     lambda_min = d - 2 cos(pi/(N+1)), which bounds max |x - x_exact| and
!     |sum(x) - N(N+1)/2|.
! Rank 0 prints the figures and "VERIFICATION PASSED" or "VERIFICATION
! FAILED"; on failure every rank ends with `stop 1` after MPI_FINALIZE.
! Bad arguments: usage on stderr, `stop 2`.
!
! Each collective call is kept on one source line: gfortran gives a continued
! statement's call the line of its last continuation, and a per-call-site
! report should name the line that says MPI_XXX.
!
!   mpiexec -n 4 ./fproxy 1000
program fproxy
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: default_n = 1000, default_max_sweeps = 500
  real(dp), parameter :: default_diag = 4.0_dp, default_tol = 1.0e-12_dp
  real(dp), parameter :: pi = 3.14159265358979323846_dp

  integer :: ierr, rank, nprocs, left, right
  integer :: iparams(3), n, max_sweeps, status
  real(dp) :: dparams(2), diag, tol
  integer :: nlocal, first, ntotal, nsweeps, nbad_local, nbad, verdict
  real(dp), allocatable :: x(:), b(:), r(:)
  real(dp) :: bb_local, bb, bnorm, rr_local, rr, rnorm
  real(dp) :: sum_local, xsum, err_local, maxerr
  real(dp) :: rho, lambda_min, bb_exact, err_bound, rounding
  integer :: sweep_bound, nfail

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

  ! Rank 0 reads the arguments; everybody uses what it broadcasts.
  iparams = 0
  dparams = 0.0_dp
  if (rank == 0) call read_args(iparams, dparams)
  call MPI_BCAST(iparams, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_BCAST(dparams, 2, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  n = iparams(1)
  max_sweeps = iparams(2)
  status = iparams(3)
  diag = dparams(1)
  tol = dparams(2)
  if (status /= 0) then
    call MPI_FINALIZE(ierr)
    stop 2
  end if

  ! Block distribution: the first mod(n, nprocs) ranks get one extra point.
  nlocal = n / nprocs
  first = rank * nlocal + min(rank, mod(n, nprocs)) + 1
  if (rank < mod(n, nprocs)) nlocal = nlocal + 1
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nprocs - 1) right = MPI_PROC_NULL

  call MPI_ALLREDUCE(nlocal, ntotal, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

  ! x carries one ghost value on each side, zero at the global boundary.
  allocate(x(0:nlocal + 1), b(nlocal), r(nlocal))
  x = 0.0_dp
  call build_rhs()

  bb_local = sum(b * b)
  call MPI_ALLREDUCE(bb_local, bb, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  bnorm = sqrt(bb)

  ! Jacobi sweeps: x <- x + (b - A x) / d
  nsweeps = 0
  do
    call residual()
    rr_local = sum(r * r)
    call MPI_ALLREDUCE(rr_local, rr, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    rnorm = sqrt(rr)
    if (rnorm <= tol * bnorm .or. nsweeps >= max_sweeps) exit
    x(1:nlocal) = x(1:nlocal) + r / diag
    nsweeps = nsweeps + 1
  end do

  ! Closed-form reference values.
  rho = (2.0_dp / diag) * cos(pi / real(n + 1, dp))
  lambda_min = diag - 2.0_dp * cos(pi / real(n + 1, dp))
  bb_exact = (diag - 2.0_dp)**2 * real(n - 1, dp) * real(n, dp) &
             * real(2 * n - 1, dp) / 6.0_dp &
             + ((diag - 1.0_dp) * real(n, dp) + 1.0_dp)**2
  ! rho**k <= tol / 1.01: the 1 % leaves room for rounding in the computed
  ! residual (about 1e-3 of tol * ||b|| at this tol), so the bound is not
  ! missed by one sweep when log(tol)/log(rho) is just below an integer.
  sweep_bound = ceiling(log(tol / 1.01_dp) / log(rho))
  ! ||e|| <= ||r|| / lambda_min, plus room for rounding in x (values ~ N)
  rounding = 64.0_dp * epsilon(1.0_dp) * real(n, dp)
  err_bound = rnorm / lambda_min + rounding

  sum_local = sum(x(1:nlocal))
  err_local = max_error()
  nbad_local = count_bad(err_bound)
  call MPI_REDUCE(sum_local, xsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(err_local, maxerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(nbad_local, nbad, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)

  verdict = 0
  if (rank == 0) then
    write (*, '(a, i0, a, i0, a, f4.1, a, es8.1)') 'fproxy: ', nprocs, &
      ' ranks, N = ', n, ', d = ', diag, ', tol = ', tol
    write (*, '(a, i0, a, i0, a)') 'sweeps:          ', nsweeps, &
      ' (bound ', sweep_bound, ')'
    write (*, '(a, es10.3)') 'final residual:  ', rnorm / bnorm
    write (*, '(a, es10.3, a, es10.3, a)') 'max error:       ', maxerr, &
      ' (bound ', err_bound, ')'
    write (*, '(a, f0.3, a, f0.3)') 'sum(x):          ', xsum, &
      ' expected ', 0.5_dp * real(n, dp) * real(n + 1, dp)
    nfail = 0
    call check(ntotal == n, 'local sizes add up to N')
    call check(abs(bb - bb_exact) <= 1.0e-12_dp * bb_exact, &
               '||b||^2 matches closed form')
    call check(rnorm <= tol * bnorm, 'converged')
    call check(nsweeps <= sweep_bound, 'sweeps within ceil(log(tol)/log(rho))')
    call check(maxerr <= err_bound, 'max error within ||r||/lambda_min')
    call check(abs(xsum - 0.5_dp * real(n, dp) * real(n + 1, dp)) &
               <= sqrt(real(n, dp)) * err_bound, 'sum(x) = N(N+1)/2')
    call check(nbad == 0, 'no point off by more than the bound')
    if (nfail == 0) then
      write (*, '(a)') 'VERIFICATION PASSED'
    else
      write (*, '(a)') 'VERIFICATION FAILED'
      verdict = 1
    end if
    flush (6)
  end if
  call MPI_BCAST(verdict, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)

  deallocate(x, b, r)
  call MPI_FINALIZE(ierr)
  if (verdict /= 0) stop 1

contains

  ! fproxy [N]: N >= max(2, nprocs), so that every rank owns a point.
  subroutine read_args(ip, dpar)
    integer, intent(out) :: ip(3)
    real(dp), intent(out) :: dpar(2)
    character(len=64) :: arg
    integer :: nargs, ios, val
    ip = [default_n, default_max_sweeps, 0]
    dpar = [default_diag, default_tol]
    nargs = command_argument_count()
    if (nargs == 0) return
    if (nargs == 1) then
      call get_command_argument(1, arg)
      read (arg, *, iostat=ios) val
      if (ios == 0 .and. val >= max(2, nprocs) .and. &
          val <= 100000000 .and. verify(trim(arg), '0123456789') == 0) then
        ip(1) = val
        return
      end if
    end if
    write (0, '(a, i0, a)') 'usage: fproxy [N]   (N: global unknowns, >= max(2, ranks) = ', &
      max(2, nprocs), '; default 1000)'
    ip(3) = 2
  end subroutine read_args

  ! b = A * x_exact, x_exact(g) = g, built from the stencil (not the closed
  ! form, which serves as the check of ||b||).
  subroutine build_rhs()
    integer :: i, g
    do i = 1, nlocal
      g = first + i - 1
      b(i) = diag * real(g, dp)
      if (g > 1) b(i) = b(i) - real(g - 1, dp)
      if (g < n) b(i) = b(i) - real(g + 1, dp)
    end do
  end subroutine build_rhs

  ! r = b - A x; fills the ghost values of x first.
  subroutine residual()
    integer :: i, st(MPI_STATUS_SIZE)
    ! rightward: my last value to the right, my left ghost from the left
    call MPI_SENDRECV(x(nlocal), 1, MPI_DOUBLE_PRECISION, right, 1, &
                      x(0), 1, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, st, ierr)
    call MPI_SENDRECV(x(1), 1, MPI_DOUBLE_PRECISION, left, 2, &
                      x(nlocal + 1), 1, MPI_DOUBLE_PRECISION, right, 2, &
                      MPI_COMM_WORLD, st, ierr)
    do i = 1, nlocal
      r(i) = b(i) - (diag * x(i) - x(i - 1) - x(i + 1))
    end do
  end subroutine residual

  real(dp) function max_error()
    integer :: i
    max_error = 0.0_dp
    do i = 1, nlocal
      max_error = max(max_error, abs(x(i) - real(first + i - 1, dp)))
    end do
  end function max_error

  integer function count_bad(bound)
    real(dp), intent(in) :: bound
    integer :: i
    count_bad = 0
    do i = 1, nlocal
      if (abs(x(i) - real(first + i - 1, dp)) > bound) count_bad = count_bad + 1
    end do
  end function count_bad

  subroutine check(cond, desc)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: desc
    if (.not. cond) then
      nfail = nfail + 1
      write (*, '(2a)') 'check failed: ', desc
    end if
  end subroutine check

end program fproxy
