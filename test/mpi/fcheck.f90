! fcheck: the Fortran bindings go through the library too (MPICH's Fortran
! MPI_XXX call the C MPI_Xxx, which the library intercepts).  Plain MPI
! (Debian's mpich provides the `mpi` module for gfortran); every result is
! checked against its analytically known value, exactly (small integers, also
! in the REAL / DOUBLE PRECISION cases).  TAP from rank 0; exit status 1 (via
! `stop 1` on every rank after MPI_FINALIZE) if any check failed on any rank.
!
!   mpiexec -n N ./fcheck
program fcheck
  use mpi
  implicit none
  integer, parameter :: n = 7
  integer :: ierr, rank, nprocs, i, r, root, ntest, nfail
  integer :: ia(n), ib(n), iexp(n)
  real :: ra(n), rb(n), rexp(n)
  double precision :: da(n), db(n), dexp(n)
  integer, allocatable :: ig(:), iexpg(:)
  logical :: good

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  ntest = 0
  nfail = 0
  allocate(ig(n * nprocs), iexpg(n * nprocs))

  ! MPI_ALLREDUCE, MPI_INTEGER, MPI_SUM: sum over ranks of (rank+1)*i
  do i = 1, n
    ia(i) = (rank + 1) * i
    iexp(i) = i * nprocs * (nprocs + 1) / 2
  end do
  ib = -1
  call MPI_ALLREDUCE(ia, ib, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call report(ierr == MPI_SUCCESS .and. all(ib == iexp), 'MPI_ALLREDUCE MPI_INTEGER MPI_SUM')

  ! MPI_ALLREDUCE, MPI_REAL, MPI_MAX: max over ranks of rank*i - 3*i
  do i = 1, n
    ra(i) = real(rank * i - 3 * i)
    rexp(i) = real((nprocs - 1) * i - 3 * i)
  end do
  rb = -1.0
  call MPI_ALLREDUCE(ra, rb, n, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, ierr)
  call report(ierr == MPI_SUCCESS .and. all(rb == rexp), 'MPI_ALLREDUCE MPI_REAL MPI_MAX')

  ! MPI_ALLREDUCE, MPI_DOUBLE_PRECISION, MPI_SUM: sum of (rank+1)*i + 0.5
  do i = 1, n
    da(i) = dble((rank + 1) * i) + 0.5d0
    dexp(i) = dble(i * nprocs * (nprocs + 1) / 2) + 0.5d0 * nprocs
  end do
  db = -1.0d0
  call MPI_ALLREDUCE(da, db, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call report(ierr == MPI_SUCCESS .and. all(db == dexp), 'MPI_ALLREDUCE MPI_DOUBLE_PRECISION MPI_SUM')

  ! MPI_ALLREDUCE with MPI_IN_PLACE
  do i = 1, n
    ib(i) = (rank + 1) * i
    iexp(i) = i * nprocs * (nprocs + 1) / 2
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, ib, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call report(ierr == MPI_SUCCESS .and. all(ib == iexp), 'MPI_ALLREDUCE MPI_IN_PLACE MPI_INTEGER MPI_SUM')

  ! MPI_BCAST from root 0 and from the last rank
  do r = 0, 1
    root = r * (nprocs - 1)
    if (rank == root) then
      do i = 1, n
        ia(i) = 100 * (root + 1) + i
      end do
    else
      ia = -1
    end if
    call MPI_BCAST(ia, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    good = ierr == MPI_SUCCESS
    do i = 1, n
      good = good .and. ia(i) == 100 * (root + 1) + i
    end do
    call report(good, 'MPI_BCAST MPI_INTEGER root=' // itoa(root))
  end do

  ! MPI_REDUCE MPI_INTEGER MPI_SUM to the last rank
  root = nprocs - 1
  do i = 1, n
    ia(i) = (rank + 1) * i
    iexp(i) = i * nprocs * (nprocs + 1) / 2
  end do
  ib = -1
  call MPI_REDUCE(ia, ib, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  good = ierr == MPI_SUCCESS
  if (rank == root) good = good .and. all(ib == iexp)
  call report(good, 'MPI_REDUCE MPI_INTEGER MPI_SUM root=' // itoa(root))

  ! MPI_REDUCE MPI_DOUBLE_PRECISION MPI_MIN to rank 0
  do i = 1, n
    da(i) = dble(10 * i - rank)
    dexp(i) = dble(10 * i - (nprocs - 1))
  end do
  db = -1.0d0
  call MPI_REDUCE(da, db, n, MPI_DOUBLE_PRECISION, MPI_MIN, 0, MPI_COMM_WORLD, ierr)
  good = ierr == MPI_SUCCESS
  if (rank == 0) good = good .and. all(db == dexp)
  call report(good, 'MPI_REDUCE MPI_DOUBLE_PRECISION MPI_MIN root=0')

  ! MPI_ALLGATHER: block r holds 1000*r + i
  do i = 1, n
    ia(i) = 1000 * rank + i
  end do
  do r = 0, nprocs - 1
    do i = 1, n
      iexpg(r * n + i) = 1000 * r + i
    end do
  end do
  ig = -1
  call MPI_ALLGATHER(ia, n, MPI_INTEGER, ig, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call report(ierr == MPI_SUCCESS .and. all(ig == iexpg), 'MPI_ALLGATHER MPI_INTEGER')

  ! MPI_GATHER to the last rank
  root = nprocs - 1
  ig = -1
  call MPI_GATHER(ia, n, MPI_INTEGER, ig, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  good = ierr == MPI_SUCCESS
  if (rank == root) good = good .and. all(ig == iexpg)
  call report(good, 'MPI_GATHER MPI_INTEGER root=' // itoa(root))

  ! MPI_SCATTER from rank 0: rank r receives 1000*r + i
  ig = -1
  if (rank == 0) ig = iexpg
  ia = -1
  call MPI_SCATTER(ig, n, MPI_INTEGER, ia, n, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  good = ierr == MPI_SUCCESS
  do i = 1, n
    good = good .and. ia(i) == 1000 * rank + i
  end do
  call report(good, 'MPI_SCATTER MPI_INTEGER root=0')

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call report(ierr == MPI_SUCCESS, 'MPI_BARRIER')

  if (rank == 0) then
    write (*, '(a, i0)') '1..', ntest
    flush (6)
  end if
  deallocate(ig, iexpg)
  call MPI_FINALIZE(ierr)
  if (nfail > 0) stop 1

contains

  ! One TAP line from rank 0 for a check that must hold on every rank.  The
  ! verdicts travel by point-to-point (MPI_SEND/MPI_RECV), which the library
  ! does not intercept: in MPICH's Fortran binding PMPI_ALLREDUCE is an alias
  ! of MPI_ALLREDUCE (both call the C MPI_Allreduce), so a collective here
  ! would be counted in the report.  That keeps the per-collective call counts
  ! exact (test/mpi_fortran.sh checks them): per rank 4 ALLREDUCE, 2 BCAST,
  ! 2 REDUCE, 1 ALLGATHER, 1 GATHER, 1 SCATTER, 1 BARRIER.
  subroutine report(cond, desc)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: desc
    integer :: mine, all_ok, v, q, e
    integer :: st(MPI_STATUS_SIZE)
    mine = 0
    if (cond) mine = 1
    if (rank == 0) then
      all_ok = mine
      do q = 1, nprocs - 1
        call MPI_RECV(v, 1, MPI_INTEGER, q, 17, MPI_COMM_WORLD, st, e)
        all_ok = min(all_ok, v)
      end do
      do q = 1, nprocs - 1
        call MPI_SEND(all_ok, 1, MPI_INTEGER, q, 18, MPI_COMM_WORLD, e)
      end do
    else
      call MPI_SEND(mine, 1, MPI_INTEGER, 0, 17, MPI_COMM_WORLD, e)
      call MPI_RECV(all_ok, 1, MPI_INTEGER, 0, 18, MPI_COMM_WORLD, st, e)
    end if
    ntest = ntest + 1
    if (all_ok /= 1) nfail = nfail + 1
    if (rank == 0) then
      if (all_ok == 1) then
        write (*, '(a, i0, a, a)') 'ok ', ntest, ' - ', desc
      else
        write (*, '(a, i0, a, a)') 'not ok ', ntest, ' - ', desc
      end if
      flush (6)
    end if
  end subroutine report

  function itoa(v) result(s)
    integer, intent(in) :: v
    character(len=:), allocatable :: s
    character(len=16) :: buf
    write (buf, '(i0)') v
    s = trim(buf)
  end function itoa

end program fcheck
