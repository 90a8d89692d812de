#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include <pthread.h>
using C=std::chrono::steady_clock;
int main(){
  std::vector<std::thread> t; 
  for(int cpu=0;cpu<2;++cpu) t.emplace_back([cpu]{
    cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu,&s); pthread_setaffinity_np(pthread_self(),sizeof s,&s);
    auto start=C::now(), last=start; double stalled=0; int n=0; double mx=0;
    while(last-start<std::chrono::seconds(2)){ auto now=C::now(); double g=std::chrono::duration<double,std::micro>(now-last).count(); if(g>20){stalled+=g;++n; if(g>mx)mx=g;} last=now;}
    printf("cpu %d: %d stalls >20us, %.2f%% of time, max %.0f us\n",cpu,n,stalled/2e6*100,mx);
  });
  for(auto&x:t)x.join();
}
