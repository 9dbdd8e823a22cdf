// Build and run: gcc -O2 -pthread bench/thread_wake.c -o /tmp/thread_wake && /tmp/thread_wake
// Thread start / wake latencies: pthread_create -> child's first instruction; futex-parked
// thread woken by a condvar; a spinning thread seeing a flag. Microseconds, medians of 200.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static _Atomic double seen; static _Atomic int flag;
static pthread_mutex_t m=PTHREAD_MUTEX_INITIALIZER; static pthread_cond_t c=PTHREAD_COND_INITIALIZER;
static void* child(void*a){(void)a; seen=now(); return 0;}
static void* parked(void*a){(void)a; pthread_mutex_lock(&m); while(!flag) pthread_cond_wait(&c,&m); pthread_mutex_unlock(&m); seen=now(); return 0;}
static void* spinner(void*a){(void)a; while(!atomic_load_explicit(&flag,memory_order_acquire)); seen=now(); return 0;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(void){
 enum{N=200}; double create[N],start[N],wake[N],spin[N];
 for(int i=0;i<N;i++){pthread_t t; double t0=now(); pthread_create(&t,0,child,0); double t1=now(); pthread_join(t,0); create[i]=t1-t0; start[i]=seen-t0; usleep(2000);}
 for(int i=0;i<N;i++){pthread_t t; flag=0; pthread_create(&t,0,parked,0); usleep(3000); pthread_mutex_lock(&m); double t0=now(); flag=1; pthread_cond_signal(&c); pthread_mutex_unlock(&m); pthread_join(t,0); wake[i]=seen-t0;}
 for(int i=0;i<N;i++){pthread_t t; flag=0; pthread_create(&t,0,spinner,0); usleep(3000); double t0=now(); atomic_store_explicit(&flag,1,memory_order_release); pthread_join(t,0); spin[i]=seen-t0;}
 qsort(create,N,8,cmp);qsort(start,N,8,cmp);qsort(wake,N,8,cmp);qsort(spin,N,8,cmp);
 printf("pthread_create call %.1f us; create->child runs %.1f us (p10 %.1f p90 %.1f); parked wake %.1f us (p90 %.1f); spinning %.2f us\n",create[N/2],start[N/2],start[N/10],start[9*N/10],wake[N/2],wake[9*N/10],spin[N/2]);
}
