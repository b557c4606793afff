// function_ref<R(Args...)> — a non-owning reference to any callable: two pointers, no
// allocation, trivially copyable. The referenced callable must outlive every call through the
// reference (pass lambdas straight into the call that uses them, as parallel_for does).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace quiver::parallel {

template <typename Signature>
class function_ref;

template <typename R, typename... Args>
class function_ref<R(Args...)> {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, function_ref> &&
                                                    std::is_invocable_r_v<R, F&, Args...>>>
  function_ref(F&& f) noexcept  // NOLINT(google-explicit-constructor): a callable view
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace quiver::parallel
