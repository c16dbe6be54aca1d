#pragma once
// \brief Error values with a message a person can act on (no exceptions across the API).
#include <string>
#include <utility>

namespace halftone {

/// \brief Result of an operation: ok, cancelled, or an error with a human-readable message.
class Status {
public:
    enum class Code { Ok, Error, Cancelled, Unavailable };

    Status() = default;
    static Status ok() { return {}; }
    static Status error(std::string message) { return Status(Code::Error, std::move(message)); }
    static Status cancelled() { return Status(Code::Cancelled, "cancelled"); }
    /// \brief A device or feature is not usable here (the caller may fall back).
    static Status unavailable(std::string message) { return Status(Code::Unavailable, std::move(message)); }
    /// \brief Unavailable because the device does not offer this request at all (a kernel or scan order it lacks),
    /// not because it failed: the caller runs it elsewhere, with a note only when that device was asked for.
    static Status notOffered(std::string message) {
        Status s(Code::Unavailable, std::move(message));
        s.notOffered_ = true;
        return s;
    }

    bool isOk() const { return code_ == Code::Ok; }
    bool isCancelled() const { return code_ == Code::Cancelled; }
    bool isUnavailable() const { return code_ == Code::Unavailable; }
    bool isNotOffered() const { return code_ == Code::Unavailable && notOffered_; }
    explicit operator bool() const { return isOk(); }
    Code code() const { return code_; }
    const std::string& message() const { return message_; }

    /// \brief Prefixes the message with context, e.g. the file name.
    Status withContext(const std::string& context) const {
        if (isOk()) return *this;
        Status s(code_, context + ": " + message_);
        s.notOffered_ = notOffered_;
        return s;
    }

private:
    Status(Code c, std::string m) : code_(c), message_(std::move(m)) {}
    Code code_ = Code::Ok;
    std::string message_;
    bool notOffered_ = false;
};

}  // namespace halftone
