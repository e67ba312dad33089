! callsites_f: known collective call sites in Fortran, for checking
! per-call-site attribution (MPIFPGA_INSTANCES / MPIFPGA_PROFILE); the
! Fortran twin of callsites.c (without its MPI_Bcast site).
!
! Expected instances, per rank, all on MPI_COMM_WORLD:
!
!   subroutine   collective      calls  bytes per call
!   site_a       MPI_ALLREDUCE       7    64  (8 MPI_DOUBLE_PRECISION, MPI_SUM)
!   site_b       MPI_ALLREDUCE       3   400  (100 MPI_INTEGER, MPI_MAX)
!
! Each collective appears exactly once in the source, in its own external
! subroutine (not a contained one: gfortran -O2 inlines small contained
! procedures, but keeps these as calls to site_a_ / site_b_).  Nothing else goes through a collective: in MPICH's Fortran
! binding PMPI_ALLREDUCE ends up in the C MPI_Allreduce like MPI_ALLREDUCE,
! so the pass/fail verdict travels by MPI_SEND/MPI_RECV, which the library
! does not intercept.
!
! Plain MPI (`use mpi`); runs at any number of ranks.  Exit status 0 and one
! line "callsites_f ok" from rank 0 iff every result is right on every rank;
! otherwise a message from each failing rank and `stop 1` on every rank
! after MPI_FINALIZE.
program callsites_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, k, good, all_good

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

  good = 1
  do k = 0, 6
    call site_a(rank, nprocs, k, good)
  end do
  do k = 0, 2
    call site_b(rank, nprocs, k, good)
  end do

  call combine(rank, nprocs, good, all_good)
  if (all_good == 1 .and. rank == 0) then
    write (*, '(a)') 'callsites_f ok'
    flush (6)
  end if
  call MPI_FINALIZE(ierr)
  if (all_good /= 1) stop 1

contains

  ! all_good = min over ranks of good, by point-to-point through rank 0.
  subroutine combine(rank, nprocs, good, all_good)
    integer, intent(in) :: rank, nprocs, good
    integer, intent(out) :: all_good
    integer :: q, v, e, st(MPI_STATUS_SIZE)
    if (rank == 0) then
      all_good = good
      do q = 1, nprocs - 1
        call MPI_RECV(v, 1, MPI_INTEGER, q, 31, MPI_COMM_WORLD, st, e)
        all_good = min(all_good, v)
      end do
      do q = 1, nprocs - 1
        call MPI_SEND(all_good, 1, MPI_INTEGER, q, 32, MPI_COMM_WORLD, e)
      end do
    else
      call MPI_SEND(good, 1, MPI_INTEGER, 0, 31, MPI_COMM_WORLD, e)
      call MPI_RECV(all_good, 1, MPI_INTEGER, 0, 32, MPI_COMM_WORLD, st, e)
    end if
  end subroutine combine

end program callsites_f

! MPI_ALLREDUCE SUM of 8 DOUBLE PRECISION values.  Inputs are small integers,
! so the sum is exact in any order: element i on rank r is (r+1)*i + icall.
subroutine site_a(rank, nprocs, icall, good)
  use mpi
  implicit none
  integer, intent(in) :: rank, nprocs, icall
  integer, intent(inout) :: good
  integer, parameter :: n = 8
  double precision :: a(n), s(n), expect
  integer :: i, ierr
  do i = 1, n
    a(i) = dble((rank + 1) * i + icall)
  end do
  ! one line: gfortran gives a continued statement's call the line of the
  ! last continuation, and the call site should name the MPI_ALLREDUCE line
  call MPI_ALLREDUCE(a, s, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) then
    write (0, '(a, i0, a, i0)') 'callsites_f: rank ', rank, &
      ': site_a error code, call ', icall
    good = 0
    return
  end if
  do i = 1, n
    expect = dble(i * nprocs * (nprocs + 1) / 2 + icall * nprocs)
    if (s(i) /= expect) then
      write (0, '(a, i0, a, i0, a, i0)') 'callsites_f: rank ', rank, &
        ': site_a wrong result, call ', icall, ', element ', i
      good = 0
      return
    end if
  end do
end subroutine site_a

! MPI_ALLREDUCE MAX of 100 INTEGERs: element i on rank r is
! mod(r + i, nprocs) * 1000 + i - icall, so the maximum is
! (nprocs - 1) * 1000 + i - icall, reached on a different rank for each i.
subroutine site_b(rank, nprocs, icall, good)
  use mpi
  implicit none
  integer, intent(in) :: rank, nprocs, icall
  integer, intent(inout) :: good
  integer, parameter :: n = 100
  integer :: a(n), m(n), i, ierr
  do i = 1, n
    a(i) = mod(rank + i, nprocs) * 1000 + i - icall
  end do
  ! continued over three lines: the site is the line where the call starts
  call MPI_ALLREDUCE(a, m, n, &   ! a comment after the ampersand
                     MPI_INTEGER, MPI_MAX, &
                     MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) then
    write (0, '(a, i0, a, i0)') 'callsites_f: rank ', rank, &
      ': site_b error code, call ', icall
    good = 0
    return
  end if
  do i = 1, n
    if (m(i) /= (nprocs - 1) * 1000 + i - icall) then
      write (0, '(a, i0, a, i0, a, i0)') 'callsites_f: rank ', rank, &
        ': site_b wrong result, call ', icall, ', element ', i
      good = 0
      return
    end if
  end do
end subroutine site_b
